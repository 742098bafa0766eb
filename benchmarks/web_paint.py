"""How soon the web page is usable: the Workloads page for 10,000 workloads (target: first
contentful paint and the rows drawn within 1 s) and the Cluster page for the openb cluster
(1,213 nodes, 6,212 GPUs; target 2 s), measured by the browser (Paint Timing and the
page's own mark once a route is drawn), next to a baseline measured in the same run: the
same pages for the four bundled examples (and no cluster).

Run: ``python benchmarks/web_paint.py [--count N] [--repeat R]``
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

import yaml
from _browser import ROOT, TRACES, browser, open_page, served

from wlmap.web import Inputs

EXAMPLES = ROOT / "src" / "wlmap" / "examples"


def workloads_file(folder: Path, count: int) -> Path:
    """``count`` PyTorchJobs (the bundled example, renamed) in one List."""
    job = yaml.safe_load((EXAMPLES / "pytorchjob-with-status.yaml").read_text())
    items = []
    for i in range(count):
        copy = yaml.safe_load(yaml.safe_dump(job))
        copy["metadata"]["name"] = f"job-{i:05d}"
        copy["metadata"]["namespace"] = f"team-{i % 37}"
        items.append(copy)
    path = folder / "jobs.yaml"
    path.write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": items}))
    return path


def timings(chrome: Any, url: str, page: str, repeat: int) -> tuple[float, float]:
    """Median first contentful paint and median time until the route is drawn (ms)."""
    fcp, drawn = [], []
    for _ in range(repeat):
        opened = open_page(chrome, url)
        fcp.append(
            opened.evaluate(
                "() => performance.getEntriesByName('first-contentful-paint')[0].startTime"
            )
        )
        drawn.append(
            opened.evaluate(
                f"() => performance.getEntriesByName('wlmap-shown-{page}')[0].startTime"
            )
        )
        opened.close()
    return statistics.median(fcp), statistics.median(drawn)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--count", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    nodes = TRACES / "openb" / "openb_node_list_gpu_node.csv"
    pods = TRACES / "openb" / "openb_pod_list_default.csv"
    with tempfile.TemporaryDirectory() as folder, browser() as chrome:
        big = workloads_file(Path(folder), args.count)
        rows = []
        with served(Inputs(files=(str(EXAMPLES),))) as url:
            base = timings(chrome, url, "workloads", args.repeat)
            base_cluster = timings(chrome, url + "#/cluster", "cluster", args.repeat)
        with served(Inputs(files=(str(big),))) as url:
            rows.append(
                (
                    f"Workloads, {args.count} workloads",
                    base,
                    timings(chrome, url, "workloads", args.repeat),
                    1000,
                )
            )
        if nodes.exists() and pods.exists():
            inputs = Inputs(files=(str(EXAMPLES),), trace_nodes=str(nodes), trace_pods=str(pods))
            with served(inputs) as url:
                measured = timings(chrome, url + "#/cluster", "cluster", args.repeat)
                rows.append(("Cluster, openb 1,213 nodes", base_cluster, measured, 2000))
        else:
            print(f"skipped the Cluster page: {nodes} is not available", file=sys.stderr)
    print(
        f"{'page':32} {'FCP ms':>8} {'drawn ms':>9} {'baseline drawn':>15} {'ratio':>6} {'target':>7}"
    )
    for name, (_, base_drawn), (fcp, drawn), target in rows:
        verdict = "ok" if max(fcp, drawn) <= target else "MISSED"
        print(
            f"{name:32} {fcp:8.0f} {drawn:9.0f} {base_drawn:15.0f} {drawn / base_drawn:6.1f} {target:5d}ms {verdict}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
