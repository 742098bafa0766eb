"""An offline packing reference for GPU allocation at 100 % arrival on the openb traces.

For each trace and seed, takes the pods that have arrived when the arrived GPU request
first reaches the cluster's capacity (same tuning and order as the simulator), then packs
their GPU shares offline: whole-GPU pods first (all of them, as if node boundaries did not
matter), then shared pods largest first, each on the GPU with the least room that fits
(best fit decreasing), opening a fresh GPU only when none fits. CPU, memory, GPU models and
node boundaries are ignored, so this is an optimistic reference for what any online policy
can reach, not a proven bound (the LP bound is that). It shows how much of FGD's loss is
structural: an 810 m shared pod leaves 190 m that only rare small pods can use.

Run: ``python benchmarks/placement_packing_reference.py [--seeds 42-51]``
"""

from __future__ import annotations

import argparse
import bisect
import statistics
import sys
from pathlib import Path

from wlmap.placement.packing import (
    MILLI,
    Pod,
    arrived_at_capacity,
    read_openb_nodes,
    read_openb_pods,
    tune_to_capacity,
)

TRACES = Path(__file__).resolve().parents[2] / "shared" / "traces" / "openb"


def packed_pct(pods: list[Pod], capacity: int) -> float:
    """Allocation (%) of the best-fit-decreasing packing of ``pods`` into the GPUs."""
    whole = sum(p.gpu_demand_milli for p in pods if p.gpu_milli >= MILLI)
    spare_gpus = (capacity - whole) // MILLI
    gaps: list[int] = []
    opened = placed = 0
    for size in sorted((p.gpu_milli for p in pods if p.shared), reverse=True):
        i = bisect.bisect_left(gaps, size)
        if i < len(gaps):
            left = gaps.pop(i) - size
        elif opened < spare_gpus:
            opened += 1
            left = MILLI - size
        else:
            continue
        placed += size
        if left > 0:
            bisect.insort(gaps, left)
    return 100.0 * (whole + placed) / capacity


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", default="42-51", help="first-last")
    args = parser.parse_args()
    if not TRACES.exists():
        print(f"{TRACES} is not available", file=sys.stderr)
        return 1
    low, _, high = args.seeds.partition("-")
    seeds = range(int(low), int(high or low) + 1)
    nodes = read_openb_nodes(TRACES / "openb_node_list_gpu_node.csv")
    capacity = sum(n.gpus for n in nodes) * MILLI
    print(f"{'trace':<12} {'offline BFD @100 %':>18}")
    for path in sorted(TRACES.glob("openb_pod_list_*.csv")):
        pods = read_openb_pods(path)
        values = [
            packed_pct(
                arrived_at_capacity(tune_to_capacity(pods, capacity, seed=s), capacity), capacity
            )
            for s in seeds
        ]
        print(f"{path.stem.removeprefix('openb_pod_list_'):<12} {statistics.fmean(values):18.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
