"""How much a policy could still gain on a trace by packing its own shared pods better.

For each seed, places the pods that have arrived when the arrived GPU request first
reaches the cluster's capacity (same tuning and order as the simulator) with the policy,
then looks at the end state:

- ``shared``: the GPUs that hold shared pods, and ``lp``: the fewest GPUs those same pods
  could fill, from the LP of their best packing (``_share_plan``'s program on the placed
  sizes; fractional, so a lower bound on any packing of them, rounded up);
- ``free``: fully free GPUs left (on nodes whose CPU or memory is gone).

Every GPU not holding shared pods or free holds a whole-GPU pod. A placement that packed
the same shared pods into ``lp`` GPUs and used every free GPU would leave
``shared - lp + free`` more GPUs to whole-GPU pods; at 100 % arrived there are always
whole-GPU pods that failed to take them. ``ceiling`` is the allocation with those GPUs
filled: what any policy that places the same pods could reach by packing alone
(optimistic: CPU, memory and node boundaries are ignored in the repacking).

Run: ``python benchmarks/placement_share_ceiling.py --traces multigpu40,multigpu30
[--policy wlmap] [--seeds 42-51]``
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
from collections import Counter, defaultdict
from pathlib import Path

from wlmap.placement.packing import (
    MILLI,
    ClusterState,
    arrived_at_capacity,
    make_policy,
    place_each,
    read_openb_nodes,
    read_openb_pods,
    share_plan,
    tune_to_capacity,
)

TRACES = Path(__file__).resolve().parents[2] / "shared" / "traces" / "openb"


def measure(trace: str, policy: str, seed: int) -> dict[str, float]:
    state = ClusterState.from_nodes(read_openb_nodes(TRACES / "openb_node_list_gpu_node.csv"))
    capacity = state.gpu_capacity_milli
    tuned = tune_to_capacity(
        read_openb_pods(TRACES / f"openb_pod_list_{trace}.csv"), capacity, ratio=1.3, seed=seed
    )
    chosen = make_policy(policy)
    chosen.reset(state, tuned, seed)
    content: defaultdict[tuple[int, int], int] = defaultdict(int)
    sizes: Counter[int] = Counter()
    for pod, placement in place_each(state, chosen, arrived_at_capacity(tuned, capacity)):
        if placement is not None and pod.shared:
            content[(placement.node, placement.gpus[0])] += pod.gpu_milli
            sizes[pod.gpu_milli] += 1
    kept = sorted(sizes)
    plan = share_plan(kept, [sizes[s] for s in kept])
    lp = math.ceil(sum(sizes[s] * float(plan.price[s]) for s in kept) - 1e-6)
    free = int((state.gpu_free == MILLI).sum())
    gained = len(content) - lp + free
    return {
        "allocation": 100.0 * state.allocated_gpu_milli / capacity,
        "shared": len(content),
        "lp": lp,
        "free": free,
        "ceiling": 100.0 * (state.allocated_gpu_milli + gained * MILLI) / capacity,
    }


def seeds_of(text: str) -> list[int]:
    if "-" in text:
        low, high = text.split("-")
        return list(range(int(low), int(high) + 1))
    return [int(s) for s in text.split(",")]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--traces", default="multigpu40", help="comma-separated pod lists")
    parser.add_argument("--policy", default="wlmap")
    parser.add_argument("--seeds", default="42-51")
    args = parser.parse_args()
    seeds = seeds_of(args.seeds)
    print("trace,policy,seed,allocation_100,shared_gpus,lp_min_gpus,free_gpus,ceiling_100")
    for trace in args.traces.split(","):
        rows = [measure(trace, args.policy, seed) for seed in seeds]
        for seed, row in zip(seeds, rows, strict=True):
            print(
                f"{trace},{args.policy},{seed},{row['allocation']:.3f},{row['shared']:.0f},"
                f"{row['lp']:.0f},{row['free']:.0f},{row['ceiling']:.3f}"
            )
        mean_alloc = statistics.fmean(r["allocation"] for r in rows)
        mean_ceiling = statistics.fmean(r["ceiling"] for r in rows)
        print(f"{trace},{args.policy},mean,{mean_alloc:.3f},,,,{mean_ceiling:.3f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
