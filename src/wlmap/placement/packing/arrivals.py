"""The arrival sequence of a run: the trace's pods tuned to a multiple of GPU capacity.

This follows the workload tuning of the FGD experiments (USENIX ATC'23, "Beware of
Fragmentation") as its published simulator performs it:

1. The trace's pods are ordered by name and shuffled with the run's seed.
2. If their total GPU request is below ``ratio * capacity``, pods drawn uniformly with
   replacement from the trace (in name order) are appended until the next draw would pass
   the target. The draws are independent, so the appended tail is already in random order.
3. If the total is above the target (the ``multigpu40`` list asks for 9,443 GPUs, more than
   1.3 x 6,212), pods chosen uniformly at random are removed until it is not.

The published simulator compares the next draw's per-GPU share with the target when
topping up; this takes the draw's whole GPU request, which can only change the last pod.
One ``random.Random(seed)`` stream drives all three steps, so a seed always gives the same
list, on any platform.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from wlmap.placement.packing.pods import Pod


def tune_to_capacity(
    pods: Sequence[Pod], capacity_gpu_milli: int, *, ratio: float = 1.3, seed: int
) -> list[Pod]:
    """The pods of one run, in arrival order, asking for about ``ratio`` x the GPU capacity.

    Args:
        pods: the trace's pod list (file order does not matter).
        capacity_gpu_milli: the cluster's GPU capacity in thousandths.
        ratio: target total GPU request as a multiple of capacity; <= 0 keeps the pods as
            they are, only shuffled.
        seed: the run's seed.

    Returns:
        A new list; sampled pods are the same objects as the originals they copy.
    """
    rng = random.Random(seed)
    ordered = sorted(pods, key=lambda p: p.name)
    arrivals = list(ordered)
    rng.shuffle(arrivals)
    if ratio <= 0 or not ordered:
        return arrivals
    target = ratio * capacity_gpu_milli
    total = sum(p.gpu_demand_milli for p in arrivals)
    if total < target:
        if not any(p.gpu_demand_milli for p in ordered):
            raise ValueError("cannot reach a GPU target with pods that request no GPU")
        while True:
            pod = ordered[rng.randrange(len(ordered))]
            if total + pod.gpu_demand_milli > target:
                break
            arrivals.append(pod)
            total += pod.gpu_demand_milli
    else:
        while total > target:
            removed = arrivals.pop(rng.randrange(len(arrivals)))
            total -= removed.gpu_demand_milli
    return arrivals


def arrived_at_capacity(pods: Sequence[Pod], capacity_gpu_milli: int) -> list[Pod]:
    """The first pods of ``pods`` up to and including the one whose arrival brings the GPU
    request to ``capacity_gpu_milli`` (100 % arrived)."""
    arrived, total = [], 0
    for pod in pods:
        arrived.append(pod)
        total += pod.gpu_demand_milli
        if total >= capacity_gpu_milli:
            break
    return arrived


__all__ = ["arrived_at_capacity", "tune_to_capacity"]
