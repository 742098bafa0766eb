"""wlmap's gang policy against the per-decision CP-SAT optimum of communication cost.

Four cluster shapes (up to 1,000 nodes), each pre-filled at random to 60-90 % of its GPUs,
then a seeded stream of gangs. For every gang, wlmap's policy (default objective) and the
exact reference (``optimal_placement``) decide on the same free capacity; the policy's
placement is applied, and the oldest gangs leave whenever occupancy passes 90 %. Reported
per shape, over gangs of two pods or more that both placed: the policy's cost over the
optimum (mean, p95, worst), each side's decision time, and how often CP-SAT hit its time
limit. Both sides get the same pair weights (0 on a node, then 1, 10, 36, 72 going up).

Shapes: ``lingjun`` is the real Clos of ../shared/traces/lingjun/topo.csv (DSW > PSW > ASW,
847 hosts; 8 GPUs per host is an assumption, the trace gives none); ``gb200`` is 6 blocks of
8 racks of 18 nodes x 4 GPUs (a rack is one NVLink domain); ``kueue-tas`` is Kueue's TAS
performance shape, 1 block x 10 racks x 64 nodes x 8 GPUs; ``n256g8`` is Tiresias' 8
switches x 32 nodes x 8 GPUs.

The gang stream is SYNTHETIC: total GPUs from the Philly/Gavel mix (1/2/4/8 GPUs =
70/10/15/5 %) for 70 % of gangs and a multi-node tail (16-256 GPUs, halving in frequency
per doubling) for the rest; pods of 1, 2, 4 or 8 GPUs (what divides the total and fits a
node); 40 % required and 40 % preferred at the finest level, 20 % unconstrained; half the
tail gangs in slices of 8 GPUs at the finest level.

Run: ``python benchmarks/placement_gang_optimum.py [--decisions 1000] [--seed 42]``
"""

from __future__ import annotations

import argparse
import csv
import statistics
import sys
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from _results import write_rows

from wlmap.placement.gangs import (
    DEFAULT_TIME_LIMIT,
    FreeCapacity,
    Gang,
    GangPlacement,
    Topology,
    apply,
    build_topology,
    default_weights,
    make_wlmap_gang_policy,
    measure,
    optimal_placement,
    release,
)
from wlmap.placement.nodes import Node

SHARED = Path(__file__).resolve().parents[2] / "shared"
RESULTS = Path(__file__).resolve().parent / "results" / "placement_gang_optimum-2026-12-03.csv"


def _node(name: str, gpus: int, labels: dict[str, str]) -> Node:
    return Node(name, 64_000, 262_144, gpus, "synthetic", labels=labels)


def lingjun() -> Topology:
    with (SHARED / "traces" / "lingjun" / "topo.csv").open(newline="") as handle:
        rows = list(csv.DictReader(handle))
    nodes = [
        _node(row["ip"][:12], 8, {"dsw": row["DSW"], "psw": row["PSW"], "asw": row["ASW"]})
        for row in rows
    ]
    return build_topology(["dsw", "psw", "asw"], nodes)


def grid(levels: list[str], shape: list[int], per_level: int, gpus: int) -> Callable[[], Topology]:
    def build() -> Topology:
        nodes: list[Node] = []
        for path in np.ndindex(*shape):
            labels = {key: f"{key[0]}{value}" for key, value in zip(levels, path, strict=True)}
            nodes.extend(
                _node(f"{'-'.join(labels.values())}-n{i}", gpus, labels) for i in range(per_level)
            )
        return build_topology(levels, nodes)

    return build


SHAPES: dict[str, Callable[[], Topology]] = {
    "lingjun": lingjun,
    "gb200": grid(["block", "rack"], [6, 8], 18, 4),
    "kueue-tas": grid(["block", "rack"], [1, 10], 64, 8),
    "n256g8": grid(["switch"], [8], 32, 8),
}


def prefill(capacity: FreeCapacity, rng: np.random.Generator) -> float:
    """Use each node's GPUs at random so that 60-90 % of the cluster is taken."""
    target = rng.uniform(0.6, 0.9)
    gpus = capacity.topology.gpus
    used = rng.binomial(gpus, target)
    for node, count in enumerate(used):
        capacity.take(node, int(count))
    return target


def gang_stream(rng: np.random.Generator, node_gpus: int, finest: int) -> Callable[[int], Gang]:
    def draw(index: int) -> Gang:
        if rng.random() < 0.7:
            total = int(rng.choice([1, 2, 4, 8], p=[0.70, 0.10, 0.15, 0.05]))
            tail = False
        else:
            total = int(16 * 2 ** rng.choice(5, p=np.array([16, 8, 4, 2, 1]) / 31))
            tail = True
        sizes = [s for s in (1, 2, 4, 8) if s <= min(total, node_gpus) and total % s == 0]
        per_pod = int(rng.choice(sizes))
        pods = total // per_pod
        intent = rng.random()
        slice_size = 8 // per_pod if tail and per_pod < 8 and rng.random() < 0.5 else 0
        if slice_size and pods % slice_size:
            slice_size = 0
        return Gang(
            f"g{index}",
            pods=pods,
            gpus_per_pod=per_pod,
            required_level=finest if intent < 0.4 else None,
            preferred_level=finest if 0.4 <= intent < 0.8 else None,
            slice_size=slice_size,
            slice_level=finest if slice_size else None,
        )

    return draw


@dataclass
class Tally:
    ratios: list[float]
    policy_ms: list[float]
    exact_ms: list[float]
    unproven: int = 0
    refused_feasible: int = 0
    placed: int = 0
    refused: int = 0


def run_shape(name: str, decisions: int, seed: int) -> Tally:
    topology = SHAPES[name]()
    rng = np.random.default_rng(seed)
    capacity = FreeCapacity(topology)
    prefill(capacity, rng)
    total = int(topology.gpus.sum())
    weights = default_weights(len(topology.levels))
    policy = make_wlmap_gang_policy(weights=weights)
    draw = gang_stream(rng, int(topology.gpus.max()), len(topology.levels) - 1)
    running: deque[GangPlacement] = deque()
    tally = Tally([], [], [])
    for index in range(decisions):
        gang = draw(index)
        start = time.perf_counter()
        placement = policy.place(capacity, gang)
        tally.policy_ms.append(1000 * (time.perf_counter() - start))
        best = optimal_placement(capacity, gang, weights)
        if best is not None:
            tally.exact_ms.append(1000 * best.seconds)
            tally.unproven += not best.proven
        if placement is None:
            tally.refused += 1
            tally.refused_feasible += best is not None
            continue
        tally.placed += 1
        if gang.pods > 1 and best is not None:
            cost = measure(placement, topology, weights).cost
            tally.ratios.append(1.0 if cost == best.cost else cost / max(best.cost, 1e-12))
        apply(capacity, placement)
        running.append(placement)
        while running and 1 - capacity.node_free.sum() / total > 0.9:
            release(capacity, running.popleft())
    return tally


def p95(values: list[float]) -> float:
    return float(np.percentile(values, 95)) if values else float("nan")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--decisions", type=int, default=1000, help="gangs per shape")
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--shapes", default=",".join(SHAPES), help="comma-separated shapes")
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    rows: list[dict[str, object]] = []
    print(f"CP-SAT time limit {DEFAULT_TIME_LIMIT} s per decision; synthetic gang stream")
    header = (
        f"{'shape':<10} {'nodes':>5} {'gangs':>5} {'compared':>8} {'mean':>6} {'p95':>6} "
        f"{'worst':>6} {'wlmap ms p50/p95':>17} {'CP-SAT ms p50/p95':>18} {'unproven':>8}"
    )
    print(header)
    for name in args.shapes.split(","):
        tally = run_shape(name, args.decisions, args.seed)
        nodes = len(SHAPES[name]().nodes)
        row = {
            "shape": name,
            "nodes": nodes,
            "seed": args.seed,
            "gangs": args.decisions,
            "placed": tally.placed,
            "compared": len(tally.ratios),
            "ratio_mean": round(statistics.fmean(tally.ratios), 4) if tally.ratios else "",
            "ratio_p95": round(p95(tally.ratios), 4),
            "ratio_max": round(max(tally.ratios, default=float("nan")), 4),
            "wlmap_ms_p50": round(statistics.median(tally.policy_ms), 3),
            "wlmap_ms_p95": round(p95(tally.policy_ms), 3),
            "cpsat_ms_p50": round(statistics.median(tally.exact_ms), 3),
            "cpsat_ms_p95": round(p95(tally.exact_ms), 3),
            "cpsat_unproven": tally.unproven,
            "refused_feasible": tally.refused_feasible,
        }
        rows.append(row)
        print(
            f"{name:<10} {nodes:>5} {args.decisions:>5} {row['compared']:>8} "
            f"{row['ratio_mean']:>6} {row['ratio_p95']:>6} {row['ratio_max']:>6} "
            f"{row['wlmap_ms_p50']:>8}/{row['wlmap_ms_p95']:<8} "
            f"{row['cpsat_ms_p50']:>9}/{row['cpsat_ms_p95']:<8} {tally.unproven:>8}"
        )
        if tally.refused_feasible:
            print(
                f"  {name}: wlmap refused {tally.refused_feasible} gangs that fit", file=sys.stderr
            )
    print(f"wrote {write_rows(args.out, rows)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
