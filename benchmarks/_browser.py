"""A ``wlmap web`` server and Debian's headless Chromium for the web benchmarks and the
screenshot script (chromium from scripts/fetch-chromium.sh, driven by Playwright)."""

from __future__ import annotations

import subprocess
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from wlmap.web import FileSource, Inputs
from wlmap.web.server import make_server

ROOT = Path(__file__).resolve().parents[1]
TRACES = ROOT.parent / "shared" / "traces"


def chromium() -> str:
    """The chromium executable (installed on first use)."""
    done = subprocess.run(
        ["bash", str(ROOT / "scripts" / "fetch-chromium.sh")],
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.strip()


@contextmanager
def served(inputs: Inputs) -> Iterator[str]:
    """A server for ``inputs`` on a free loopback port, its data read before it answers."""
    source = FileSource(inputs)
    source.workloads()
    source.cluster()
    server = make_server(source, "127.0.0.1", 0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    host, port = server.server_address[:2]
    try:
        yield f"http://{host!s}:{port}/"
    finally:
        server.shutdown()
        server.server_close()


@contextmanager
def browser() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright  # noqa: PLC0415 - dev extra

    with sync_playwright() as driver:
        launched = driver.chromium.launch(executable_path=chromium(), args=["--no-sandbox"])
        try:
            yield launched
        finally:
            launched.close()


def open_page(browser: Any, url: str, width: int = 1400, height: int = 900) -> Any:
    """A new page at ``url``, once it has drawn its route."""
    page = browser.new_page(viewport={"width": width, "height": height})
    page.goto(url)
    page.wait_for_function(
        "() => document.body.dataset.shown === (location.hash || '#/workloads')", timeout=120_000
    )
    return page
