"""Share prices of the gaps a node's free CPU and memory can still feed.

``_share_plan`` values a GPU's gap (its free thousandths) by the most the trace's shared
sizes can still put in it, at their prices. A gap on a node whose CPU or memory is used up
takes nothing, whatever its size: on multigpu40 (seed 42) the 470 m pods that failed
between 97 % and 100 % arrived all had a GPU with room, on a node without the 8 or 12
cores they ask.

Here the prices count only the pods that still fit. Each trace pod of a shared size fits a
node's free CPU and memory or not; the size keeps the fraction of its pods (each trace pod
name once) that fit, times its price, and the gap value is the knapsack of
``_share_plan`` with those prices. The fractions only change where the free CPU or memory
crosses a request of some shared pod of the trace, so the values are kept per pair of
such steps and computed the first time a node sits between them.

The knapsack lets every size in the gap use all of the free CPU and memory; the pods put
in one gap together may ask for more. That errs on the side of the plain gap value.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from wlmap.placement.packing.pods import MILLI, Pod
from wlmap.placement.packing.policies._share_plan import SharePlan, gap_values
from wlmap.placement.packing.policies.fragmentation import FloatArray, IntArray

__all__ = ["FedGaps"]


class FedGaps:
    """Gap values and spoiled shares with only the pods a node can still feed.

    Args:
        plan: the share prices of the trace's shared sizes.
        shared: the trace's distinct shared pods (each name once).
    """

    def __init__(self, plan: SharePlan, shared: Sequence[Pod]) -> None:
        self._plan = plan
        sizes = sorted({p.gpu_milli for p in shared})
        self._sizes = sizes
        self._price = np.array([plan.price[s] for s in sizes], dtype=np.float64)
        self._cpu_steps = np.array(sorted({p.cpu_milli for p in shared}), dtype=np.int64)
        self._memory_steps = np.array(sorted({p.memory_mib for p in shared}), dtype=np.int64)
        self._columns = len(self._memory_steps) + 1
        cells = (len(self._cpu_steps) + 1) * self._columns
        fraction = np.zeros((len(self._cpu_steps) + 1, self._columns, len(sizes)))
        for j, size in enumerate(sizes):
            pods = [p for p in shared if p.gpu_milli == size]
            for pod in pods:
                # a pod fits from the step of its own request on
                c = int(np.searchsorted(self._cpu_steps, pod.cpu_milli)) + 1
                m = int(np.searchsorted(self._memory_steps, pod.memory_mib)) + 1
                fraction[c:, m:, j] += 1.0 / len(pods)
        self._fraction = fraction.reshape(cells, len(sizes))
        self._table = np.zeros((cells, MILLI + 1), dtype=np.float64)
        self._known = np.zeros(cells, dtype=np.bool_)
        self._by_fraction: dict[bytes, FloatArray] = {}

    def value(self, gap: IntArray, cpu: IntArray, memory: IntArray) -> FloatArray:
        """The most each gap can still take (GPUs), counting the pods its node can feed."""
        row = np.searchsorted(self._cpu_steps, cpu, side="right")
        cell = row * self._columns + np.searchsorted(self._memory_steps, memory, side="right")
        for c in np.unique(cell[~self._known[cell]]):
            self._table[c] = self._values(self._fraction[c])
            self._known[c] = True
        result: FloatArray = self._table[cell, gap]
        return result

    def cost(self, pod: Pod, gap: IntArray, cpu: IntArray, memory: IntArray) -> FloatArray:
        """GPUs spoiled by putting shared ``pod`` on GPUs with ``gap`` free, on nodes with
        ``cpu`` and ``memory`` free before it: the gap's value before, less the pod's price
        and the value of the gap it leaves with the CPU and memory it leaves."""
        before = self.value(gap, cpu, memory)
        after = self.value(gap - pod.gpu_milli, cpu - pod.cpu_milli, memory - pod.memory_mib)
        spoiled: FloatArray = np.maximum(0.0, before - self._plan.price[pod.gpu_milli] - after)
        return spoiled

    def _values(self, fraction: FloatArray) -> FloatArray:
        key = np.round(fraction, 6).tobytes()
        known = self._by_fraction.get(key)
        if known is None:
            known = gap_values(self._sizes, self._price * fraction)
            self._by_fraction[key] = known
        return known
