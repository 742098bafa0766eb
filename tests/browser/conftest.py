"""The browser fixtures: Debian's Chromium (installed by scripts/fetch-chromium.sh) driven
headless by Playwright, and a ``wlmap web`` server on a free loopback port per test."""

from __future__ import annotations

import subprocess
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from wlmap.web import FileSource, Inputs
from wlmap.web.server import make_server

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "fetch-chromium.sh"


@pytest.fixture(scope="session")
def chromium_path() -> str:
    """The chromium executable; skips with the reason when it cannot be installed here."""
    try:
        done = subprocess.run(
            ["bash", str(SCRIPT)], capture_output=True, text=True, timeout=900, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        pytest.skip(f"Debian's chromium could not be installed: {exc}")
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["no message"])[-1]
        pytest.skip(f"Debian's chromium could not be installed ({last})")
    return done.stdout.strip()


@pytest.fixture(scope="package")
def browser(chromium_path: str) -> Iterator[Any]:
    # Playwright's sync driver keeps an event loop running in this thread until it stops:
    # it must stop with the browser tests, or every later asyncio.run() here refuses to run.
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is in the dev extras")
    with sync_api.sync_playwright() as driver:
        launched = driver.chromium.launch(executable_path=chromium_path, args=["--no-sandbox"])
        yield launched
        launched.close()


Serve = Callable[..., str]


@pytest.fixture
def serve() -> Iterator[Serve]:
    """Start ``wlmap web`` for the given inputs; returns its address."""
    servers = []

    def start(*files: str | Path, **options: Any) -> str:
        inputs = Inputs(files=tuple(map(str, files)), **options)
        server = make_server(FileSource(inputs), "127.0.0.1", 0)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        servers.append(server)
        host, port = server.server_address[:2]
        return f"http://{host!s}:{port}/"

    yield start
    for server in servers:
        server.shutdown()
        server.server_close()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    """A fresh page that records script errors and dialogs (a hostile name must cause none)."""
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    opened = context.new_page()
    opened.errors = []
    opened.on("pageerror", lambda error: opened.errors.append(str(error)))
    opened.on(
        "dialog",
        lambda dialog: (opened.errors.append(f"dialog {dialog.message}"), dialog.dismiss()),
    )
    yield opened
    context.close()


def shown(page: Any, url: str) -> None:
    """Open ``url`` and wait until the page has drawn its route."""
    page.goto(url)
    page.wait_for_function("() => document.body.dataset.shown === (location.hash || '#/workloads')")
