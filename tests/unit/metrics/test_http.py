"""The exporter's endpoint: what a scrape and a probe get before and after the sync."""

from __future__ import annotations

import asyncio
from http import HTTPStatus

from wlmap.metrics.http import MetricsServer
from wlmap.metrics.index import MetricsIndex


def test_health_is_503_until_synced_and_metrics_say_so() -> None:
    server = MetricsServer(MetricsIndex(), port=0)
    status, _, body = server.respond("GET", "/healthz")
    assert status == HTTPStatus.SERVICE_UNAVAILABLE
    status, kind, body = server.respond("GET", "/metrics")
    assert status == HTTPStatus.OK and kind.startswith("text/plain; version=0.0.4")
    assert b"wlmap_exporter_cache_synced 0" in body
    server.index.synced = True
    assert server.respond("GET", "/healthz?verbose")[0] == HTTPStatus.OK
    assert b"wlmap_exporter_cache_synced 1" in server.respond("GET", "/metrics")[2]


def test_other_paths_and_methods_are_refused() -> None:
    server = MetricsServer(MetricsIndex(), port=0)
    assert server.respond("GET", "/")[0] == HTTPStatus.NOT_FOUND
    assert server.respond("POST", "/metrics")[0] == HTTPStatus.METHOD_NOT_ALLOWED


def test_served_over_http_on_a_free_port() -> None:
    async def exchange() -> bytes:
        server = MetricsServer(MetricsIndex(), host="127.0.0.1", port=0)
        await server.start()
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
            writer.write(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
            await writer.drain()
            answer = await reader.read()
            writer.close()
            return answer
        finally:
            await server.stop()

    answer = asyncio.run(exchange())
    assert answer.startswith(b"HTTP/1.1 200 OK\r\n")
    assert b"# TYPE wlmap_exporter_cache_synced gauge" in answer
