"""DRA planning throughput (reference section 9d): first-fit against wlmap's gang planner
with device matching, at 1,000 nodes pre-filled to 50 % and 90 %.

Cluster (synthetic, from ``wlmap.placement.devices.scenario``): ``--nodes`` nodes of 8 GPUs
published as ResourceSlices (two PCIe roots of 4 GPUs per node; cliques of 4 nodes,
alternately H100 and A100). A random share ``--fill`` of the GPUs is allocated first.
Every device a request may use is filtered by CEL: the DeviceClass selector (driver and
``type``), and for 30 % of the requests a selector on ``productName`` (H100 only).

Workloads (synthetic): (i) single pods, one claim each for 1, 2 or 4 GPUs (.4/.35/.25)
with ``matchAttribute: resource.kubernetes.io/pcieRoot`` when more than one; (ii) gangs
of ``--gang-pods`` pods (64), every pod of a gang with the same claim, 1 or 2 GPUs
(.5/.5), the 2-GPU claim on one PCIe root. Gangs are not held to one clique here (64 pods
do not fit in one): the planner's aligned groups are the node and the PCIe root.

Each decision starts from the same pre-filled state: what a decision allocates is
released before the next one, outside the timing. The CEL results for every (selector,
device) pair are computed once before the timing (``warm-up`` below); a decision then
costs the search alone. Printed per (fill, workload, policy): decisions/s (pods/s for
single pods, gangs/s for gangs), pods placed per second, the share of decisions that
placed, and the p50/p99 decision latency; then wlmap's rates as ratios to first-fit's,
measured in the same run. A CSV with one row per (fill, workload, policy) goes to
``benchmarks/results/placement_dra_speed-<date>.csv``.

Run: ``python benchmarks/placement_dra_speed.py [--nodes 1000] [--pods 400] [--gangs 20]``
"""

from __future__ import annotations

import argparse
import datetime
import random
import statistics
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from _results import write_rows

from wlmap.placement.devices import (
    PCIE_ROOT,
    DeviceState,
    GangAllocation,
    GangPlanner,
    PodClaims,
    claim_template,
    first_fit_gang,
    prefilled_state,
    read_dra,
)

POLICIES = ("first-fit", "wlmap")
RESULTS = Path(__file__).resolve().parent / "results"


def claims(rng: random.Random, count: int, gang_pods: int) -> list[list[PodClaims]]:
    """``count`` decisions: single pods when ``gang_pods`` is 1, else gangs."""
    shapes = [
        claim_template(f"gpu{g}-{h}", g, h == "h100") for g in (1, 2, 4) for h in ("any", "h100")
    ]
    by_name = read_dra(shapes, "speed").claims
    found = []
    for index in range(count):
        if gang_pods == 1:
            gpus = rng.choices((1, 2, 4), (0.4, 0.35, 0.25))[0]
        else:
            gpus = rng.choice((1, 2))
        h100 = "h100" if rng.random() < 0.3 else "any"
        claim = by_name[f"gpu{gpus}-{h100}"]
        found.append([PodClaims(f"d{index}-{p}", (claim,)) for p in range(gang_pods)])
    return found


def measure(
    policy: str, state: DeviceState, decisions: Sequence[Sequence[PodClaims]]
) -> dict[str, float]:
    planner = GangPlanner(state, (), (PCIE_ROOT,)) if policy == "wlmap" else None
    latencies = []
    placed = pods = 0
    for pods_of in decisions:
        start = time.perf_counter()
        found: GangAllocation | None = (
            planner.plan(pods_of) if planner is not None else first_fit_gang(pods_of, state)
        )
        latencies.append(time.perf_counter() - start)
        if found is not None:
            placed += 1
            pods += len(pods_of)
            state.release(found.devices)
    spent = sum(latencies)
    latencies.sort()
    return {
        "rate": len(decisions) / spent,
        "pods_per_s": pods / spent,
        "placed": placed / len(decisions),
        "p50_ms": 1000 * statistics.median(latencies),
        "p99_ms": 1000 * latencies[min(len(latencies) - 1, round(0.99 * len(latencies)))],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nodes", type=int, default=1000)
    parser.add_argument("--pods", type=int, default=400, help="single-pod decisions")
    parser.add_argument("--gangs", type=int, default=20, help="gang decisions")
    parser.add_argument("--gang-pods", type=int, default=64)
    parser.add_argument("--fills", default="0.5,0.9")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--out", type=Path, help="CSV path (default: results/placement_dra_speed-<date>.csv)"
    )
    args = parser.parse_args()
    print(f"{args.nodes} nodes x 8 GPUs, CEL-filtered devices, matchAttribute on PCIe root")
    header = f"{'fill':>4} {'workload':<10} {'policy':<9} {'per s':>8} {'pods/s':>8}"
    print(f"{header} {'placed':>7} {'p50 ms':>8} {'p99 ms':>8}")
    rows: list[dict[str, Any]] = []
    for fill in (float(f) for f in args.fills.split(",")):
        workloads = {
            "pods": claims(random.Random(args.seed), args.pods, 1),
            f"gangs x{args.gang_pods}": claims(
                random.Random(args.seed), args.gangs, args.gang_pods
            ),
        }
        state = prefilled_state(args.nodes, fill, random.Random(args.seed))
        start = time.perf_counter()
        free = state.free_devices()
        shapes = {c.name: c for w in workloads.values() for d in w for c in d[0].claims}
        for claim in shapes.values():
            for request in claim.requests:
                state.candidates(claim, request, free)
        warm = time.perf_counter() - start
        print(f"warm-up (CEL on every device, {len(free)} free): {warm:.2f} s")
        for workload, decisions in workloads.items():
            results = {p: measure(p, state, decisions) for p in POLICIES}
            rows.extend(
                {"nodes": args.nodes, "fill": fill, "workload": workload, "policy": policy}
                | {k: round(v, 4) for k, v in r.items()}
                for policy, r in results.items()
            )
            for policy, r in results.items():
                print(
                    f"{fill:>4.0%} {workload:<10} {policy:<9} {r['rate']:>8.1f} "
                    f"{r['pods_per_s']:>8.1f} {r['placed']:>7.1%} {r['p50_ms']:>8.2f} "
                    f"{r['p99_ms']:>8.2f}"
                )
            ours, base = results["wlmap"], results["first-fit"]
            print(
                f"{fill:>4.0%} {workload:<10} wlmap / first-fit: rate x{ours['rate'] / base['rate']:.2f}, "
                f"p50 x{ours['p50_ms'] / base['p50_ms']:.2f}, p99 x{ours['p99_ms'] / base['p99_ms']:.2f}"
            )

    out = args.out or RESULTS / f"placement_dra_speed-{datetime.date.today().isoformat()}.csv"
    print(f"wrote {write_rows(out, rows)}")


if __name__ == "__main__":
    main()
