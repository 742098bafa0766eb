"""What a live update costs on an open Workloads page: one workload's change, from the
server publishing it to the browser showing it, for 10,000 workloads on the page, next to
a baseline measured in the same run with 100. The target is a ratio near 1: an update
costs the change, not the page (decision 61).

The documents are the file source's (N renamed PyTorchJobs); the changes are published
on the same queue and stream a cluster source uses.

Run: ``python benchmarks/web_update.py [--count N] [--repeat R]``
"""

from __future__ import annotations

import argparse
import copy
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from _browser import browser, open_page
from web_paint import workloads_file

from wlmap.web import FileSource, Inputs
from wlmap.web.changes import Changes
from wlmap.web.server import make_server


class ChangingSource(FileSource):
    """The file source's documents, with a queue of changes the test publishes."""

    def __init__(self, inputs: Inputs) -> None:
        super().__init__(inputs)
        self.changes = Changes()

    def workloads(self) -> dict[str, Any]:
        return {**super().workloads(), "version": self.changes.last}


@contextmanager
def served(path: Path) -> Iterator[tuple[str, ChangingSource]]:
    source = ChangingSource(Inputs(files=(str(path),)))
    source.workloads()
    server = make_server(source, "127.0.0.1", 0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    host, port = server.server_address[:2]
    try:
        yield f"http://{host!s}:{port}/", source
    finally:
        server.shutdown()
        server.server_close()


def update_ms(chrome: Any, url: str, source: ChangingSource, repeat: int) -> float:
    """Median time from publishing a renamed row to the page showing it."""
    page = open_page(chrome, url)
    page.wait_for_function("() => document.body.dataset.live === 'open'")
    row = source.workloads()["items"][0]
    took = []
    for i in range(repeat):
        changed = copy.deepcopy(row)
        changed["name"] = f"changed-{i}"
        started = time.perf_counter()
        source.changes.publish({"op": "put", "row": changed})
        page.wait_for_function(
            f"""() => document.querySelector('tr[data-key="{row["key"]}"] a')
                ?.textContent === 'changed-{i}'""",
            polling="raf",
        )
        took.append((time.perf_counter() - started) * 1000)
    page.close()
    return statistics.median(took)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--count", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder, browser() as chrome:
        (Path(folder) / "small").mkdir()
        (Path(folder) / "big").mkdir()
        small = workloads_file(Path(folder) / "small", 100)
        big = workloads_file(Path(folder) / "big", args.count)
        with served(small) as (url, source):
            base = update_ms(chrome, url, source, args.repeat)
        with served(big) as (url, source):
            measured = update_ms(chrome, url, source, args.repeat)
    print(f"{'page':28} {'update ms':>10} {'baseline ms':>12} {'ratio':>6}")
    print(
        f"{f'Workloads, {args.count} rows':28} {measured:10.1f} {base:12.1f} {measured / base:6.2f}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
