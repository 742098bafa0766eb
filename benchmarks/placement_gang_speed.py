"""Gang placement throughput: single pods and 64-pod gangs at 1,000 nodes, pods at 10,000.

Clusters of 8-GPU nodes in three levels: 1,000 nodes = 10 blocks x 10 racks x 10 nodes;
10,000 nodes = 25 blocks x 25 racks x 16 nodes. Each is pre-filled to 50 % and 90 % of its
GPUs (seeded random takes), then asked for decisions: single pods of 1/2/4/8 GPUs
(70/10/15/5 %), and gangs of 64 one-GPU pods preferring one rack. A decision is the
policy's ``place`` plus ``apply``; the pods are released after each decision (untimed) so
the fill stays put. Printed: decisions per second, p50/p99 decision latency, each next to
its target (1,000 pods/s and 50 gangs/s at 1,000 nodes, 200 pods/s at 10,000 nodes), and,
as the baseline measured in the same run, the cost of one "pods per rack" answer from the
incremental histograms against a rescan of every node.

Run: ``python benchmarks/placement_gang_speed.py [--decisions 2000] [--policy wlmap,kai]``
(registered policies, comma-separated; default wlmap).
"""

from __future__ import annotations

import argparse
import random
import sys
import time

import numpy as np

from wlmap.placement.gangs import (
    GANG_POLICIES,
    FreeCapacity,
    Gang,
    GangPolicy,
    Topology,
    apply,
    build_topology,
    make_gang_policy,
    release,
)
from wlmap.placement.nodes import Node

SIZES = ((1, 0.70), (2, 0.10), (4, 0.15), (8, 0.05))


def cluster(blocks: int, racks: int, nodes: int) -> Topology:
    made = [
        Node(
            f"n{b}-{r}-{n}",
            128_000,
            1 << 20,
            8,
            "GPU",
            labels={"block": f"b{b}", "rack": f"b{b}r{r}"},
        )
        for b in range(blocks)
        for r in range(racks)
        for n in range(nodes)
    ]
    return build_topology(["block", "rack"], made)


def prefill(topology: Topology, share: float, seed: int) -> FreeCapacity:
    capacity = FreeCapacity(topology)
    rng = random.Random(seed)
    target = int(share * int(topology.gpus.sum()))
    taken = 0
    while taken < target:
        node = rng.randrange(len(topology.nodes))
        free = int(capacity.node_free[node])
        if free:
            gpus = min(rng.randint(1, free), target - taken)
            capacity.take(node, gpus)
            taken += gpus
    return capacity


def measure(
    policy: GangPolicy, capacity: FreeCapacity, gangs: list[Gang]
) -> tuple[float, list[float]]:
    """Decisions per second (place + apply) and each decision's latency."""
    latencies = []
    for gang in gangs:
        started = time.perf_counter()
        placement = policy.place(capacity, gang)
        if placement is not None:
            apply(capacity, placement)
        latencies.append(time.perf_counter() - started)
        if placement is not None:
            release(capacity, placement)
    return len(gangs) / sum(latencies), latencies


def rescan_ratio(capacity: FreeCapacity, repeat: int = 200) -> tuple[float, float]:
    """Seconds of one pods-per-rack answer: from the histograms, and by rescanning nodes
    (best of five batches, since the machine may be shared)."""
    topology = capacity.topology

    def histogram() -> None:
        capacity.pod_slots(1, 2)

    def rescan() -> None:
        np.bincount(
            topology.node_domain[1],
            weights=capacity.node_free // 2,
            minlength=topology.domain_count(1),
        )

    found = []
    for answer in (histogram, rescan):
        batches = []
        for _ in range(5):
            started = time.perf_counter()
            for _ in range(repeat):
                answer()
            batches.append((time.perf_counter() - started) / repeat)
        found.append(min(batches))
    return found[0], found[1]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--decisions", type=int, default=2000, help="single-pod decisions per case")
    parser.add_argument(
        "--policy", default="wlmap", help="registered gang policies, comma-separated"
    )
    args = parser.parse_args()
    names = args.policy.split(",")
    unknown = [name for name in names if name not in GANG_POLICIES]
    if unknown:
        print(
            f"unknown policies {unknown}; expected some of {list(GANG_POLICIES)}", file=sys.stderr
        )
        return 2
    rng = random.Random(42)
    singles = [
        Gang(f"pod-{i}", 1, rng.choices([s for s, _ in SIZES], [p for _, p in SIZES])[0])
        for i in range(args.decisions)
    ]
    gangs = [
        Gang(f"gang-{i}", 64, 1, preferred_level=1) for i in range(max(args.decisions // 10, 20))
    ]
    cases = [
        ("1,000 nodes", cluster(10, 10, 10), "single pods", singles, 1000.0, "pods/s"),
        ("1,000 nodes", cluster(10, 10, 10), "64-pod gangs", gangs, 50.0, "gangs/s"),
        ("10,000 nodes", cluster(25, 25, 16), "single pods", singles, 200.0, "pods/s"),
    ]
    print(
        f"{'policy':<16}{'cluster':<13}{'fill':>5}  {'decisions':<13}{'rate':>10}  {'target':>12}{'/ target':>9}"
        f"{'p50 ms':>9}{'p99 ms':>9}{'hist us':>9}{'rescan us':>10}{'rescan/hist':>12}"
    )
    for label, topology, kind, asked, target, unit in cases:
        for fill, name in ((fill, name) for fill in (0.5, 0.9) for name in names):
            capacity = prefill(topology, fill, seed=7)
            policy = make_gang_policy(name, seed=1)
            rate, latencies = measure(policy, capacity, asked)
            p50, p99 = np.percentile(latencies, [50, 99]) * 1000
            hist, rescan = rescan_ratio(capacity)
            print(
                f"{name:<16}{label:<13}{fill:>5.0%}  {kind:<13}{rate:10.0f}  {target:>5.0f} {unit:<6}"
                f"{rate / target:9.2f}{p50:9.3f}{p99:9.3f}{hist * 1e6:9.1f}{rescan * 1e6:10.1f}"
                f"{rescan / hist:12.1f}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
