"""The exporter's HTTP endpoint: ``/metrics`` (the index rendered, text format 0.0.4) and
``/healthz`` (200 once the caches are synced, 503 before), on asyncio streams in the event
loop that feeds the index, so a scrape never sees a half-applied change."""

from __future__ import annotations

import asyncio
import logging
from http import HTTPStatus

from wlmap.metrics.exposition import CONTENT_TYPE
from wlmap.metrics.index import MetricsIndex

__all__ = ["DEFAULT_PORT", "MetricsServer"]

DEFAULT_PORT = 9402
READ_SECONDS = 10.0
log = logging.getLogger("wlmap.metrics")


class MetricsServer:
    """Serves one index on ``host:port`` (port 0: a free one, see :attr:`port`)."""

    def __init__(self, index: MetricsIndex, host: str = "0.0.0.0", port: int = DEFAULT_PORT):
        self.index = index
        self.host = host
        self.port = port
        self._server: asyncio.Server | None = None

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._answer, self.host, self.port)
        self.port = int(self._server.sockets[0].getsockname()[1])

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()

    def respond(self, method: str, path: str) -> tuple[HTTPStatus, str, bytes]:
        """The status, content type and body of one request."""
        path = path.split("?", 1)[0]
        if method not in ("GET", "HEAD"):
            return HTTPStatus.METHOD_NOT_ALLOWED, "text/plain", b"GET only\n"
        if path == "/metrics":
            return HTTPStatus.OK, CONTENT_TYPE, self.index.render().encode()
        if path in ("/healthz", "/readyz"):
            if self.index.synced:
                return HTTPStatus.OK, "text/plain", b"ok\n"
            return HTTPStatus.SERVICE_UNAVAILABLE, "text/plain", b"caches not synced\n"
        return HTTPStatus.NOT_FOUND, "text/plain", b"/metrics or /healthz\n"

    async def _answer(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            request = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), READ_SECONDS)
            method, path, *_ = request.split(b"\r\n", 1)[0].decode("latin-1").split(" ")
            status, kind, body = self.respond(method, path)
            head = (
                f"HTTP/1.1 {status.value} {status.phrase}\r\nContent-Type: {kind}\r\n"
                f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
            )
            writer.write(head.encode("latin-1") + (b"" if method == "HEAD" else body))
            await writer.drain()
        except (TimeoutError, ValueError, asyncio.IncompleteReadError, ConnectionError):
            pass  # a client that went away or spoke no HTTP
        finally:
            writer.close()
