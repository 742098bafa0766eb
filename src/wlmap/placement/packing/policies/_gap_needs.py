"""The CPU and memory a GPU's free share will ask for before pods can use it.

wlmap's stranding terms compare a node's free CPU and memory with what its free GPU share
will ask for. A whole free GPU asks what the trace's GPU pods ask per GPU on average. A
partly used GPU does not: only the shared sizes that fit its gap can still go there, and
they may ask much more or much less per thousandth than the average. On multigpu40 the
470 m pods that close a 530 m gap ask 8 or 11.9 cores (17 to 25 per GPU, against an
average of 10.5), while the 190 m beside an 810 m pod takes none of the sizes the share
plan counts. Counting every free thousandth at the average missed both: 8-GPU nodes were
left with a 530 m gap and 4 cores, and the 470 m pods that came later failed there.

Here a gap of ``r`` thousandths needs what a fill of it asks: the next pod is one of the
sizes that fit ``r`` and that the share plan prices above zero, drawn as often as the
trace has each; it asks the mean CPU and memory of the trace's pods of its size, and the
rest of the gap, ``r`` less its size, needs the same in turn. A gap no priced size fits
needs nothing; a whole free GPU keeps the average of the trace's GPU pods (as does every
share when the trace has no share plan).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from wlmap.placement.packing.pods import MILLI, Pod
from wlmap.placement.packing.policies._share_plan import SharePlan
from wlmap.placement.packing.policies.fragmentation import FloatArray

__all__ = ["gap_needs"]


def gap_needs(
    plan: SharePlan, shared: Sequence[Pod], cpu_per_milli: float, memory_per_milli: float
) -> tuple[FloatArray, FloatArray]:
    """CPU (millicores) and memory (MiB) that each free share ``0..1000`` needs.

    Args:
        plan: the share prices of the trace's shared sizes.
        shared: the trace's distinct shared pods (each name once).
        cpu_per_milli: CPU the trace's GPU pods ask per GPU-milli (for a whole free GPU).
        memory_per_milli: their memory per GPU-milli.
    """
    priced = sorted({p.gpu_milli for p in shared if plan.price[p.gpu_milli] > 0})
    if not priced:
        # no plan (no shared pods, or too many configurations): the average for every share
        share = np.arange(MILLI + 1, dtype=np.float64)
        return share * cpu_per_milli, share * memory_per_milli
    size = np.array(priced, dtype=np.int64)
    count = np.array([sum(p.gpu_milli == s for p in shared) for s in priced], dtype=np.float64)
    cpu_of = np.array([np.mean([p.cpu_milli for p in shared if p.gpu_milli == s]) for s in priced])
    memory_of = np.array(
        [np.mean([p.memory_mib for p in shared if p.gpu_milli == s]) for s in priced]
    )
    cpu = np.zeros(MILLI + 1, dtype=np.float64)
    memory = np.zeros(MILLI + 1, dtype=np.float64)
    for r in range(int(size[0]), MILLI):
        fit = size <= r
        weight = count[fit] / count[fit].sum()
        rest = r - size[fit]
        cpu[r] = float(weight @ (cpu_of[fit] + cpu[rest]))
        memory[r] = float(weight @ (memory_of[fit] + memory[rest]))
    cpu[MILLI] = cpu_per_milli * MILLI
    memory[MILLI] = memory_per_milli * MILLI
    return cpu, memory
