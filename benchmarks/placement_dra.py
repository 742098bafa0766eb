"""DRA gangs on a fragmented cluster: wlmap's gang device planner against first-fit.

Cluster (synthetic, stated here): ``--nodes`` nodes of 8 GPUs, each published as one
ResourceSlice of the ``gpu.nvidia.com`` driver with the attributes the NVIDIA DRA driver
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
whole gang at once (see ``wlmap.placement.dra.planner``). ``clique-first-fit`` is the same
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
import csv
import datetime
import random
import statistics
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from wlmap.placement.dra import (
    DeviceState,
    GangAllocation,
    GangPlanner,
    PodClaims,
    aligned,
    first_fit_gang,
    read_dra,
)

RESULTS = Path(__file__).resolve().parent / "results"
DRIVER = "gpu.nvidia.com"
PCIE_ROOT = "resource.kubernetes.io/pcieRoot"
CLIQUE = "gpu.nvidia.com/cliqueId"
PRODUCTS = ("NVIDIA H100 80GB HBM3", "NVIDIA A100-SXM4-80GB")
GPU_CLASS = {
    "apiVersion": "resource.k8s.io/v1",
    "kind": "DeviceClass",
    "metadata": {"name": "gpu.nvidia.com"},
    "spec": {
        "selectors": [
            {
                "cel": {
                    "expression": "device.driver == 'gpu.nvidia.com' && "
                    "device.attributes['gpu.nvidia.com'].type == 'gpu'"
                }
            }
        ]
    },
}
POLICIES = ("first-fit", "clique-first-fit", "wlmap")
H100 = "device.attributes['gpu.nvidia.com'].productName == 'NVIDIA H100 80GB HBM3'"


def cluster(nodes: int) -> list[dict[str, Any]]:
    """The ResourceSlices of the cluster, one per node."""
    slices = []
    for n in range(nodes):
        clique = n // 4
        product = PRODUCTS[clique % 2]
        devices = [
            {
                "name": f"gpu-{i}",
                "attributes": {
                    "type": {"string": "gpu"},
                    "productName": {"string": product},
                    "architecture": {"string": "Hopper" if "H100" in product else "Ampere"},
                    "cliqueId": {"string": f"clique-{clique}"},
                    PCIE_ROOT: {"string": f"pci{i // 4}"},
                },
                "capacity": {"memory": {"value": "80Gi"}},
            }
            for i in range(8)
        ]
        slices.append(
            {
                "apiVersion": "resource.k8s.io/v1",
                "kind": "ResourceSlice",
                "metadata": {"name": f"node-{n}-gpu"},
                "spec": {
                    "driver": DRIVER,
                    "pool": {"name": f"node-{n}", "generation": 1},
                    "nodeName": f"node-{n}",
                    "devices": devices,
                },
            }
        )
    return slices


def template(name: str, gpus: int, h100: bool) -> dict[str, Any]:
    exactly: dict[str, Any] = {"deviceClassName": "gpu.nvidia.com", "count": gpus}
    if h100:
        exactly["selectors"] = [{"cel": {"expression": H100}}]
    devices: dict[str, Any] = {"requests": [{"name": "gpus", "exactly": exactly}]}
    if gpus > 1:
        devices["constraints"] = [{"matchAttribute": PCIE_ROOT}]
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaimTemplate",
        "metadata": {"name": name, "namespace": "bench"},
        "spec": {"spec": {"devices": devices}},
    }


def stream(gangs: int, hold: float, rng: random.Random) -> list[tuple[list[PodClaims], int]]:
    """Gangs in arrival order, each with the number of arrivals it holds its GPUs for."""
    shapes = {
        (g, h): template(f"gpu{g}-{'h100' if h else 'any'}", g, h)
        for g in (1, 2, 4)
        for h in (False, True)
    }
    claims = read_dra(shapes.values(), "stream").claims
    found = []
    for index in range(gangs):
        pods = rng.choices((1, 2, 4), (0.5, 0.3, 0.2))[0]
        gpus = rng.choices((1, 2, 4), (0.4, 0.35, 0.25))[0]
        h100 = rng.random() < 0.3
        claim = claims[f"gpu{gpus}-{'h100' if h100 else 'any'}"]
        members = [PodClaims(f"gang{index}-{p}", (claim,)) for p in range(pods)]
        found.append((members, max(1, round(rng.expovariate(1 / hold)))))
    return found


def run(
    policy: str, nodes: int, gangs: int, hold: float, seed: int
) -> dict[str, float | int | str]:
    rng = random.Random(seed)
    state = DeviceState(read_dra([GPU_CLASS, *cluster(nodes)], "cluster"))
    every = [d for n in state.nodes for d in state.devices(n)]
    state.take(rng.sample(every, len(every) // 2))
    arrivals = stream(gangs, hold, rng)
    place: Callable[[Sequence[PodClaims]], GangAllocation | None]
    if policy == "wlmap":
        place = GangPlanner(state, (CLIQUE,), (PCIE_ROOT,)).plan
    elif policy == "clique-first-fit":
        place = GangPlanner(state, (CLIQUE,), (PCIE_ROOT,), score=False).plan
    else:
        place = lambda pods: first_fit_gang(pods, state)  # noqa: E731
    running: list[tuple[int, GangAllocation]] = []
    allocated = aligned_count = 0
    spent = 0.0
    for t, (pods, held) in enumerate(arrivals):
        for done in [r for r in running if r[0] <= t]:
            state.release(done[1].devices)
            running.remove(done)
        start = time.perf_counter()
        found = place(pods)
        spent += time.perf_counter() - start
        if found is None:
            continue
        allocated += 1
        aligned_count += aligned(found, [CLIQUE]) and all(
            aligned(GangAllocation((p,)), [PCIE_ROOT]) for p in found.pods
        )
        running.append((t + held, found))
    return {
        "seed": seed,
        "policy": policy,
        "nodes": nodes,
        "gangs": gangs,
        "allocated": allocated,
        "aligned": aligned_count,
        "allocation_rate": round(allocated / gangs, 4),
        "aligned_share": round(aligned_count / allocated, 4) if allocated else 0.0,
        "aligned_rate": round(aligned_count / gangs, 4),
        "gangs_per_s": round(gangs / spent, 1),
    }


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
    with out.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
