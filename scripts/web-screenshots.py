"""Screenshots of each page of `wlmap web` into docs/web/: the bundled examples; the Cluster
page for the openb cluster and the Simulations page for short `wlmap simulate` runs on it
(../shared/traces beside the checkout); the Waiting page for the plan tests' cluster dump
with the Kueue TAS sample Job from the corpus (../shared/corpus).

Run: ``.venv/bin/python scripts/web-screenshots.py``
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from _browser import ROOT, TRACES, browser, open_page, served  # noqa: E402

from wlmap.web import Inputs  # noqa: E402

OUT = ROOT / "docs" / "web"
EXAMPLES = ROOT / "src" / "wlmap" / "examples"


def simulate(out: Path, *args: str) -> str:
    command = [sys.executable, "-m", "wlmap.cli", "simulate", *args, "--output-file", str(out)]
    subprocess.run(command, check=True)
    return out.name  # read from its folder


def simulations(folder: Path, nodes: str, pods: str) -> tuple[str, ...]:
    """A short allocation run on the openb cluster and a gangs run on a built-in shape."""
    policies = [a for p in ("fgd", "bestfit", "packing", "dotproduct") for a in ("--policy", p)]
    curves = simulate(
        folder / "openb-default.csv", "--nodes", nodes, "--pods", pods, *policies,
        "--seeds", "1-2", "--ratio", "1.0",
    )  # fmt: skip
    gang_policies = ("wlmap", "kueue-bestfit", "most-allocated", "slurm-block", "random")
    gangs = simulate(
        folder / "gangs-n256g8.csv", "gangs", "--topology", "n256g8",
        *[a for p in gang_policies for a in ("--policy", p)],
        "--load", "0.6", "--load", "0.9", "--seeds", "1-2", "--hours", "6",
    )  # fmt: skip
    return curves, gangs


def waiting_dump(folder: Path) -> str:
    """The plan tests' cluster with two Kueue TAS sample Jobs waiting, one too wide."""
    from tests.browser.test_waiting import waiting_jobs  # noqa: PLC0415 - reads the corpus
    from tests.unit.placement.plan.inputs import dump_objects  # noqa: PLC0415

    dump = folder / "cluster.yaml"
    items = dump_objects() + waiting_jobs()
    dump.write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": items}))
    return dump.name


def shoot(chrome: object, url: str, name: str, width: int = 1280, height: int = 800) -> None:
    page = open_page(chrome, url, width, height)
    page.screenshot(path=str(OUT / f"{name}.png"), full_page=name != "workload")
    page.close()


def main() -> None:
    from tests.unit.placement.plan.inputs import LEVELS  # noqa: PLC0415

    os.chdir(ROOT)  # relative paths on the pictures
    nodes = os.path.relpath(TRACES / "openb" / "openb_node_list_gpu_node.csv")
    pods = os.path.relpath(TRACES / "openb" / "openb_pod_list_default.csv")
    with tempfile.TemporaryDirectory(prefix="wlmap-shots-") as temporary:
        folder = Path(temporary)
        results = simulations(folder, nodes, pods)
        dump = waiting_dump(folder)
        with browser() as chrome:
            with served(Inputs(files=("src/wlmap/examples/",))) as url:
                shoot(chrome, url, "workloads")
                shoot(chrome, url + "#/workload/2", "workload")
            os.chdir(folder)  # the pages name the files, not a temporary path
            with served(Inputs(files=(dump,), levels=LEVELS)) as url:
                shoot(chrome, url + "#/waiting", "waiting")
            with served(Inputs(files=(), simulations=results)) as url:
                shoot(chrome, url + "#/simulations", "simulations", 1280, 900)
            os.chdir(ROOT)
            inputs = Inputs(files=("src/wlmap/examples/",), trace_nodes=nodes, trace_pods=pods)
            with served(inputs) as url:
                shoot(chrome, url + "#/cluster", "cluster-openb", 1400, 900)


if __name__ == "__main__":
    main()
