"""GPU Clustering: put a pod with pods of its own GPU-request class.

As the FGD paper's simulator defines it, GPU pods fall into classes by request: shared (a
fraction of one GPU) or ``k`` whole GPUs. For a GPU pod of class ``c``, a feasible node
scores ``25 * (8000 - free GPU milli) // 8000`` (the fuller, the higher) plus

- 75 when every GPU pod on the node is of class ``c``;
- 50 when the node holds class ``c`` among others;
- 25 when the node holds no GPU pod yet;
- 0 when it holds only other classes.

CPU-only pods score 0 everywhere and do not count in any class, so they go to the first
feasible node in the per-seed rank. Ties go to that rank. Inside the node the GPU choice is
``best``: the tightest GPU for a shared pod, the lowest-indexed free GPUs for whole ones.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from wlmap.placement.packing.cluster_state import BoolArray, ClusterState, IntArray
from wlmap.placement.packing.pods import MILLI, Placement, Pod
from wlmap.placement.packing.policies._common import ScoredPolicy

MAX_GPU_MILLI = 8_000


def gpu_class(pod: Pod) -> int:
    """The pod's class: 0 for shared, ``k`` for ``k`` whole GPUs, -1 for CPU-only."""
    if pod.num_gpu == 0:
        return -1
    return 0 if pod.gpu_milli < MILLI else pod.num_gpu


class ClusteringPolicy(ScoredPolicy):
    """GPU-request-class clustering (see the module docstring)."""

    name = "clustering"

    def __init__(self) -> None:
        super().__init__()
        self._members: dict[int, BoolArray] = {}
        self._classes: IntArray = np.zeros(0, dtype=np.int64)

    def reset(self, state: ClusterState, workload: Sequence[Pod], seed: int) -> None:
        super().reset(state, workload, seed)
        self._members = {}
        self._classes = np.zeros(len(state.nodes), dtype=np.int64)

    def score(self, state: ClusterState, pod: Pod, feasible: BoolArray) -> IntArray:
        kind = gpu_class(pod)
        if kind < 0:
            return np.zeros(len(state.nodes), dtype=np.int64)
        fill = 25 * (MAX_GPU_MILLI - state.gpu_free_total) // MAX_GPU_MILLI
        member = self._members.get(kind)
        if member is None:
            bonus = np.where(self._classes == 0, 25, 0)
        else:
            bonus = np.where(
                member,
                np.where(self._classes == 1, 75, 50),
                np.where(self._classes == 0, 25, 0),
            )
        result: IntArray = fill + bonus
        return result

    def observe(self, state: ClusterState, pod: Pod, placement: Placement) -> None:
        kind = gpu_class(pod)
        if kind < 0:
            return
        member = self._members.setdefault(kind, np.zeros(len(state.nodes), dtype=np.bool_))
        if not member[placement.node]:
            member[placement.node] = True
            self._classes[placement.node] += 1


__all__ = ["ClusteringPolicy", "gpu_class"]
