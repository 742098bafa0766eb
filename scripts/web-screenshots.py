"""Screenshots of each page of `wlmap web` into docs/web/: the bundled examples, and the
Cluster page for the openb cluster (../shared/traces beside the checkout).

Run: ``.venv/bin/python scripts/web-screenshots.py``
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from _browser import ROOT, TRACES, browser, open_page, served  # noqa: E402

from wlmap.web import Inputs  # noqa: E402

OUT = ROOT / "docs" / "web"
EXAMPLES = ROOT / "src" / "wlmap" / "examples"


def main() -> None:
    os.chdir(ROOT)  # relative paths on the pictures
    nodes = os.path.relpath(TRACES / "openb" / "openb_node_list_gpu_node.csv")
    pods = os.path.relpath(TRACES / "openb" / "openb_pod_list_default.csv")
    with browser() as chrome:
        with served(Inputs(files=("src/wlmap/examples/",))) as url:
            for name, route in [("workloads", ""), ("workload", "#/workload/2"), ("waiting", "#/waiting"), ("simulations", "#/simulations")]:
                page = open_page(chrome, url + route, 1280, 800)
                page.screenshot(path=str(OUT / f"{name}.png"), full_page=name != "workload")
                page.close()
        inputs = Inputs(files=("src/wlmap/examples/",), trace_nodes=str(nodes), trace_pods=str(pods))
        with served(inputs) as url:
            page = open_page(chrome, url + "#/cluster", 1400, 900)
            page.screenshot(path=str(OUT / "cluster-openb.png"), full_page=True)
            page.close()


if __name__ == "__main__":
    main()
