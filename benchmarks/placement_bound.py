"""The offline bound per openb trace: its value at 100 % and 130 % arrived, and its cost.

For each pod list and seed, the bound is computed at every arrived percent (0..130) of the
tuned arrival sequence, as ``wlmap simulate --policy bound`` does. Prints one Markdown row
per trace: mean and population standard deviation of the bound at 100 %, its mean at
130 %, the LP's size, and the seconds per seed next to one BestFit simulation run of the
same trace and seed, measured in the same process (the ratio is what to watch).

Run: ``python benchmarks/placement_bound.py [--seeds 42-51] [TRACE ...]``
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from wlmap.placement.packing import (
    offline_bound,
    read_openb_nodes,
    read_openb_pods,
    simulate,
    tune_to_capacity,
)

OPENB = Path(__file__).resolve().parents[1].parent / "shared" / "traces" / "openb"
TRACES = (
    "default",
    "cpu050",
    "cpu100",
    "cpu200",
    "cpu250",
    "cpu300",
    "gpushare40",
    "gpushare60",
    "gpushare80",
    "gpuspec10",
    "gpuspec20",
    "gpuspec25",
    "multigpu20",
    "multigpu30",
    "multigpu40",
)


def seeds(text: str) -> list[int]:
    first, _, last = text.partition("-")
    return list(range(int(first), int(last or first) + 1))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("traces", nargs="*", default=list(TRACES))
    parser.add_argument("--seeds", type=seeds, default=seeds("42-51"))
    args = parser.parse_args()
    nodes = read_openb_nodes(OPENB / "openb_node_list_gpu_node.csv")
    capacity = sum(n.gpus for n in nodes) * 1000
    print(f"seeds {args.seeds[0]}-{args.seeds[-1]}; bound in % of {capacity // 1000} GPUs")
    print(
        "| trace | bound at 100 % | at 130 % | shapes x classes (columns) | s per seed | / bestfit run |"
    )
    print("|---|---|---|---|---|---|")
    for trace in args.traces:
        pods = read_openb_pods(OPENB / f"openb_pod_list_{trace}.csv")
        at_100, at_130, bound_s, run_s = [], [], [], []
        for seed in args.seeds:
            started = time.perf_counter()
            arrivals = tune_to_capacity(pods, capacity, seed=seed)
            bound = offline_bound(nodes, arrivals, range(131))
            bound_s.append(time.perf_counter() - started)
            at_100.append(bound.at(100).bound_percent)
            at_130.append(bound.at(130).bound_percent)
            started = time.perf_counter()
            simulate(nodes, pods, "bestfit", seed=seed, measure_fragmentation=False)
            run_s.append(time.perf_counter() - started)
        cost = statistics.mean(bound_s)
        print(
            f"| {trace} | {statistics.mean(at_100):.2f} ± {statistics.pstdev(at_100):.2f} "
            f"| {statistics.mean(at_130):.2f} "
            f"| {bound.shape_classes} x {bound.node_classes} ({bound.variables}) "
            f"| {cost:.2f} | {cost / statistics.mean(run_s):.2f} |"
        )


if __name__ == "__main__":
    main()
