"""The HTTP server of ``wlmap web``: the page's static files and a read-only JSON API.

The standard library's threading HTTP server is enough for a page read by a few people
on a workstation (decision 0059). Only GET and HEAD are answered. Every answer carries a
Content-Security-Policy that allows scripts and styles from this server only (no inline
script, no other origin), so a string from an object cannot become code even if it
reached the markup.

A source with ``changes`` (a live cluster) also streams them at ``/api/events`` as
server-sent events, one per changed workload (decision 0061). With a
:class:`~wlmap.web.access.Guard` every answer needs a bearer token the API server
accepts, and shows only the workloads its user may list (:mod:`wlmap.web.filtering`).
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

from wlmap.errors import ClusterError
from wlmap.web.access import Guard, User, refusal
from wlmap.web.events import stream
from wlmap.web.filtering import Visible
from wlmap.web.source import Source

CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
    "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
STATIC = {
    "/": ("index.html", "text/html; charset=utf-8"),
    "/static/app.js": ("app.js", "text/javascript; charset=utf-8"),
    "/static/charts.js": ("charts.js", "text/javascript; charset=utf-8"),
    "/static/live.js": ("live.js", "text/javascript; charset=utf-8"),
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


def make_handler(source: Source, guard: Guard | None = None) -> type[BaseHTTPRequestHandler]:
    """A request handler class bound to ``source`` (and checking access with ``guard``)."""
    api = _api(source)

    class Handler(BaseHTTPRequestHandler):
        server_version = "wlmap-web"
        sys_version = ""

        def do_GET(self) -> None:
            self._answer(body=True)

        def do_HEAD(self) -> None:
            self._answer(body=False)

        def _answer(self, *, body: bool) -> None:
            path, _, query = self.path.partition("?")
            try:
                visible = self._visible()
                if visible is None:
                    status, kind = HTTPStatus.UNAUTHORIZED, "application/json"
                    payload = _json({"error": "a valid bearer token is needed"})
                elif path == "/api/events" and body:
                    self._events(visible, query)
                    return
                else:
                    status, kind, payload = self._route(path, visible)
            except ClusterError as exc:  # the API server could not review the request now
                status, kind = HTTPStatus.SERVICE_UNAVAILABLE, "application/json"
                payload = _json({"error": refusal(exc)})
            except Exception as exc:  # one line to the page, never a traceback
                status, kind = HTTPStatus.INTERNAL_SERVER_ERROR, "application/json"
                payload = _json({"error": f"{type(exc).__name__}: {exc}".splitlines()[0]})
            self._head(status, kind, len(payload))
            if body:
                with contextlib.suppress(ConnectionError):  # the browser left for a new page
                    self.wfile.write(payload)

        def _head(self, status: HTTPStatus, kind: str, length: int | None) -> None:
            self.send_response(status)
            self.send_header("Content-Type", kind)
            if length is not None:
                self.send_header("Content-Length", str(length))
            if status == HTTPStatus.UNAUTHORIZED:
                self.send_header("WWW-Authenticate", 'Bearer realm="wlmap"')
            self.send_header("Content-Security-Policy", CSP)
            self.send_header("X-Content-Type-Options", "nosniff")
            self.send_header("Referrer-Policy", "no-referrer")
            self.send_header("Cache-Control", "no-store")
            self.end_headers()

        def _visible(self) -> Visible | None:
            """What this request may see; None when it must be refused (401)."""
            if guard is None:
                return Visible(None, None)
            user: User | None = guard.user(self.headers.get("Authorization"))
            return Visible(guard, user) if user is not None else None

        def _events(self, visible: Visible, query: str) -> None:
            changes = getattr(source, "changes", None)
            if changes is None:
                payload = _json({"error": "this source does not change"})
                self._head(HTTPStatus.NOT_FOUND, "application/json", len(payload))
                with contextlib.suppress(ConnectionError):
                    self.wfile.write(payload)
                return
            self._head(HTTPStatus.OK, "text/event-stream; charset=utf-8", None)
            last = self.headers.get("Last-Event-ID") or _parameter(query, "since") or "0"
            with contextlib.suppress(ConnectionError):  # the page was closed
                stream(
                    changes,
                    int(last) if last.isdigit() else 0,
                    visible,
                    self.wfile,
                    still=lambda: (
                        not self.server.closing  # type: ignore[attr-defined]  # set by make_server
                        and self._visible() is not None
                    ),
                )

        def _route(self, path: str, visible: Visible) -> tuple[HTTPStatus, str, bytes]:
            if path in STATIC:
                name, kind = STATIC[path]
                data = resources.files("wlmap.web").joinpath("static", name).read_bytes()
                return HTTPStatus.OK, kind, data
            if path in api:
                return HTTPStatus.OK, "application/json", _json(visible.page(path, api[path]()))
            matched = WORKLOAD.match(path)
            if matched:
                found = source.workload(int(matched.group(1)))
                document = visible.workload(found) if found is not None else None
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
            if self.server.verbose:  # type: ignore[attr-defined]  # a Server's
                sys.stderr.write(f"{self.address_string()} {format % args}\n")

    return Handler


def _parameter(query: str, name: str) -> str | None:
    for pair in query.split("&"):
        key, _, value = pair.partition("=")
        if key == name:
            return value
    return None


def _json(document: Any) -> bytes:
    return json.dumps(document, separators=(",", ":"), default=str).encode()


class Server(ThreadingHTTPServer):
    """The threading server, told when it closes so that event streams end."""

    daemon_threads = True
    verbose = False
    closing = False

    def shutdown(self) -> None:
        self.closing = True
        super().shutdown()


def make_server(
    source: Source,
    host: str = "127.0.0.1",
    port: int = 8080,
    *,
    verbose: bool = False,
    guard: Guard | None = None,
) -> Server:
    """A server for ``source`` bound to ``host:port`` (port 0: any free port); with
    ``guard``, every request needs a bearer token and sees what its user may list."""
    server = Server((host, port), make_handler(source, guard))
    server.verbose = verbose
    return server


def serve(
    source: Source,
    host: str = "127.0.0.1",
    port: int = 8080,
    *,
    ready: Callable[[str], None] = print,
    verbose: bool = False,
    guard: Guard | None = None,
) -> None:
    """Serve until interrupted; ``ready`` is told the address once listening."""
    server = make_server(source, host, port, verbose=verbose, guard=guard)
    bound_host, bound_port = server.server_address[:2]
    ready(f"http://{bound_host!s}:{bound_port}/")
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
