"""DRA gangs on a fragmented cluster: wlmap's gang device planner against first-fit.

The cluster and the gang stream come from ``wlmap.placement.devices.scenario`` (the same
ones ``wlmap simulate dra`` runs). Cluster (synthetic): ``--nodes`` nodes of 8 GPUs, each
published as one ResourceSlice of the ``gpu.nvidia.com`` driver with the attributes the NVIDIA DRA driver
publishes (``type``, ``productName``, ``architecture``, the standard
``resource.kubernetes.io/pcieRoot``: GPUs 0-3 under ``pci0``, 4-7 under ``pci1``) and a
modelled ``gpu.nvidia.com/cliqueId``: 4 consecutive nodes form one NVLink clique. Cliques
alternate between H100 and A100 nodes. Before the stream starts, a random 50 % of the GPUs
(chosen with the seed) are allocated and stay so: the fragmentation other workloads left.

Gangs (synthetic): ``--gangs`` gangs arrive one after another; each has 1, 2 or 4 pods
(probabilities .5/.3/.2), each pod one ResourceClaim from a template asking for 1, 2 or 4
GPUs (.4/.35/.25) with ``matchAttribute: resource.kubernetes.io/pcieRoot`` when it asks
for more than one; 30 % of the gangs select H100s with a CEL selector on ``productName``.
Every gang needs all its GPUs in one NVLink clique (a ComputeDomain), which DRA cannot
express across pods. A gang holds its GPUs for an exponential number of later arrivals
(mean ``--hold``), so the free capacity stays near the pre-filled level.

First-fit places pods one by one as the in-tree allocator does (nodes and devices in slice
order, backtracking only within a pod's claim), all-or-nothing per gang. wlmap plans the
whole gang at once (see ``wlmap.placement.devices.gang_planner``). ``clique-first-fit`` is the same
planner without its scoring (first clique, node and devices that fit): it shows what the
scoring of aligned groups adds to the clique constraint alone. Printed per policy, over the
seeds: the share of offered gangs allocated, the share of allocated gangs whose GPUs satisfy
their alignment (one clique, and each claim's PCIe root, which both always keep), the share
of offered gangs allocated and aligned ("both"), and gangs planned per second (time spent
in the planner only, failed attempts included); then wlmap's figures as ratios to each
baseline's, measured in the same run. A CSV with one row per seed and policy goes to
``benchmarks/results/placement_dra-<date>.csv``.

Run: ``python benchmarks/placement_dra.py [--nodes 64] [--gangs 400] [--seeds 1-5]``
"""

from __future__ import annotations

import argparse
import datetime
import statistics
from pathlib import Path
from typing import Any

from _results import write_rows

from wlmap.placement.devices import POLICIES, run_scenario

RESULTS = Path(__file__).resolve().parent / "results"


def run(policy: str, nodes: int, gangs: int, hold: float, seed: int) -> dict[str, Any]:
    found = run_scenario(policy, nodes, gangs, hold, seed)
    return {**found.row, "gangs_per_s": round(gangs / found.seconds, 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nodes", type=int, default=64)
    parser.add_argument("--gangs", type=int, default=400)
    parser.add_argument("--hold", type=float, default=40.0, help="mean arrivals a gang holds")
    parser.add_argument("--seeds", default="1-5", help="e.g. 1-5")
    parser.add_argument(
        "--out", type=Path, help="CSV path (default: results/placement_dra-<date>.csv)"
    )
    args = parser.parse_args()
    first, _, last = args.seeds.partition("-")
    seeds = range(int(first), int(last or first) + 1)
    rows = [
        run(policy, args.nodes, args.gangs, args.hold, seed)
        for seed in seeds
        for policy in POLICIES
    ]
    mean: dict[str, dict[str, float]] = {}
    for policy in POLICIES:
        mine = [r for r in rows if r["policy"] == policy]
        mean[policy] = {
            key: statistics.fmean(float(r[key]) for r in mine)
            for key in ("allocation_rate", "aligned_share", "aligned_rate", "gangs_per_s")
        }
    print(f"{args.nodes} nodes x 8 GPUs, 50 % pre-filled, {args.gangs} gangs, seeds {args.seeds}")
    print(f"{'policy':<16} {'allocated':>10} {'aligned':>8} {'both':>6} {'gangs/s':>9}")
    for policy, m in mean.items():
        print(
            f"{policy:<16} {m['allocation_rate']:>10.1%} {m['aligned_share']:>8.1%} "
            f"{m['aligned_rate']:>6.1%} {m['gangs_per_s']:>9.0f}"
        )
    ours = mean["wlmap"]
    for baseline in POLICIES[:-1]:
        base = mean[baseline]
        print(
            f"wlmap / {baseline}: "
            f"allocation rate x{ours['allocation_rate'] / base['allocation_rate']:.2f}, "
            f"aligned share x{ours['aligned_share'] / base['aligned_share']:.2f}, "
            f"allocated and aligned x{ours['aligned_rate'] / base['aligned_rate']:.2f}, "
            f"gangs/s x{ours['gangs_per_s'] / base['gangs_per_s']:.2f}"
        )
    out = args.out or RESULTS / f"placement_dra-{datetime.date.today().isoformat()}.csv"
    print(f"wrote {write_rows(out, rows)}")


if __name__ == "__main__":
    main()
