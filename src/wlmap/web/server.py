"""The HTTP server of ``wlmap web``: the page's static files and a read-only JSON API.

The standard library's threading HTTP server is enough for a page read by a few people
on a workstation (decision 0059). Only GET and HEAD are answered. Every answer carries a
Content-Security-Policy that allows scripts and styles from this server only (no inline
script, no other origin), so a string from an object cannot become code even if it
reached the markup.
"""

from __future__ import annotations

import contextlib
import json
import re
import sys
from collections.abc import Callable
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from typing import Any

from wlmap.web.source import Source

CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
    "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
STATIC = {
    "/": ("index.html", "text/html; charset=utf-8"),
    "/static/app.js": ("app.js", "text/javascript; charset=utf-8"),
    "/static/charts.js": ("charts.js", "text/javascript; charset=utf-8"),
    "/static/app.css": ("app.css", "text/css; charset=utf-8"),
}
WORKLOAD = re.compile(r"^/api/workload/(\d{1,9})$")


def _api(source: Source) -> dict[str, Callable[[], Any]]:
    return {
        "/api/workloads": source.workloads,
        "/api/cluster": source.cluster,
        "/api/waiting": source.waiting,
        "/api/simulations": source.simulations,
    }


def make_handler(source: Source) -> type[BaseHTTPRequestHandler]:
    """A request handler class bound to ``source``."""
    api = _api(source)

    class Handler(BaseHTTPRequestHandler):
        server_version = "wlmap-web"
        sys_version = ""

        def do_GET(self) -> None:
            self._answer(body=True)

        def do_HEAD(self) -> None:
            self._answer(body=False)

        def _answer(self, *, body: bool) -> None:
            path = self.path.split("?", 1)[0]
            try:
                status, kind, payload = self._route(path)
            except Exception as exc:  # one line to the page, never a traceback
                status, kind = HTTPStatus.INTERNAL_SERVER_ERROR, "application/json"
                payload = _json({"error": f"{type(exc).__name__}: {exc}".splitlines()[0]})
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(payload)))
            self.send_header("Content-Security-Policy", CSP)
            self.send_header("X-Content-Type-Options", "nosniff")
            self.send_header("Referrer-Policy", "no-referrer")
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            if body:
                with contextlib.suppress(ConnectionError):  # the browser left for a new page
                    self.wfile.write(payload)

        def _route(self, path: str) -> tuple[HTTPStatus, str, bytes]:
            if path in STATIC:
                name, kind = STATIC[path]
                data = resources.files("wlmap.web").joinpath("static", name).read_bytes()
                return HTTPStatus.OK, kind, data
            if path in api:
                return HTTPStatus.OK, "application/json", _json(api[path]())
            matched = WORKLOAD.match(path)
            if matched:
                document = source.workload(int(matched.group(1)))
                if document is not None:
                    return HTTPStatus.OK, "application/json", _json(document)
                return (
                    HTTPStatus.NOT_FOUND,
                    "application/json",
                    _json({"error": "no such workload"}),
                )
            return HTTPStatus.NOT_FOUND, "application/json", _json({"error": f"no page {path}"})

        def do_POST(self) -> None:
            self.send_error(HTTPStatus.METHOD_NOT_ALLOWED, "read-only")

        do_PUT = do_PATCH = do_DELETE = do_POST

        def log_message(self, format: str, *args: Any) -> None:
            if self.server.verbose:  # type: ignore[attr-defined]  # set by serve()
                sys.stderr.write(f"{self.address_string()} {format % args}\n")

    return Handler


def _json(document: Any) -> bytes:
    return json.dumps(document, separators=(",", ":"), default=str).encode()


def make_server(
    source: Source, host: str = "127.0.0.1", port: int = 8080, *, verbose: bool = False
) -> ThreadingHTTPServer:
    """A server for ``source`` bound to ``host:port`` (port 0: any free port)."""
    server = ThreadingHTTPServer((host, port), make_handler(source))
    server.daemon_threads = True
    server.verbose = verbose  # type: ignore[attr-defined]  # read by the handler
    return server


def serve(
    source: Source,
    host: str = "127.0.0.1",
    port: int = 8080,
    *,
    ready: Callable[[str], None] = print,
    verbose: bool = False,
) -> None:
    """Serve until interrupted; ``ready`` is told the address once listening."""
    server = make_server(source, host, port, verbose=verbose)
    bound_host, bound_port = server.server_address[:2]
    ready(f"http://{bound_host!s}:{bound_port}/")
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
