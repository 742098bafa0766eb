"""What the score-based baseline policies share: the tie-break order and the GPU choice.

The published simulator (kube-scheduler with the FGD plugins) gives every feasible node an
integer score and takes the highest; among equal scores it takes the node whose name sorts
first, and node names carry a per-seed random permutation as prefix. Here the permutation is
``tie_rank(node count, seed)`` (rank 0 wins), the same for every policy of a run.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

import numpy as np

from wlmap.placement.packing.cluster_state import BoolArray, ClusterState, IntArray
from wlmap.placement.packing.pods import MILLI, Placement, Pod

DEFAULT_CPU_REQUEST = 100
"""Millicores kube-scheduler scores a pod that requests no CPU with (``GetNonzeroRequests``)."""


def tie_rank(count: int, seed: int) -> IntArray:
    """Rank of each node in the per-seed tie-break order (0 wins ties)."""
    rank: IntArray = np.random.default_rng(seed).permutation(count).astype(np.int64)
    return rank


def scored_cpu(pod: Pod) -> int:
    """The CPU request the scores see: a pod without one counts as 100 millicores."""
    return pod.cpu_milli if pod.cpu_milli > 0 else DEFAULT_CPU_REQUEST


def best_fit_gpus(state: ClusterState, node: int, pod: Pod) -> tuple[int, ...]:
    """The published ``best`` GPU choice inside a node.

    A shared pod takes the GPU with the least free share that still fits it (lowest index
    on ties); a pod asking for whole GPUs takes the lowest-indexed fully free GPUs.
    """
    if pod.num_gpu == 0:
        return ()
    row = state.gpu_free[node, : state.gpu_count[node]]
    if pod.gpu_milli < MILLI:
        fitting = np.where(row >= pod.gpu_milli, row, MILLI + 1)
        return (int(np.argmin(fitting)),)
    return tuple(int(g) for g in np.flatnonzero(row == MILLI)[: pod.num_gpu])


def random_gpus(state: ClusterState, node: int, pod: Pod, rng: random.Random) -> tuple[int, ...]:
    """The published ``random`` GPU choice: a shared pod takes any GPU it fits on, uniformly;
    whole GPUs are the lowest-indexed fully free ones, as with ``best_fit_gpus``."""
    if pod.num_gpu == 0 or pod.gpu_milli >= MILLI:
        return best_fit_gpus(state, node, pod)
    row = state.gpu_free[node, : state.gpu_count[node]]
    fitting = np.flatnonzero(row >= pod.gpu_milli)
    return (int(fitting[rng.randrange(len(fitting))]),)


class ScoredPolicy:
    """Base of the baselines that score every feasible node with an integer.

    Subclasses implement ``score``; the node with the highest score wins, ties go to the
    lowest ``tie_rank``, and the GPUs inside it are chosen with ``best_fit_gpus``.
    """

    name = "scored"

    def __init__(self) -> None:
        self._bonus: IntArray = np.zeros(0, dtype=np.int64)

    def reset(self, state: ClusterState, workload: Sequence[Pod], seed: int) -> None:
        count = len(state.nodes)
        # Folding the rank into the score lets one argmax pick the winner and break ties.
        self._bonus = count - tie_rank(count, seed)

    def score(self, state: ClusterState, pod: Pod, feasible: BoolArray) -> IntArray:
        """Integer score per node (only feasible nodes are looked at)."""
        raise NotImplementedError

    def place(self, state: ClusterState, pod: Pod) -> Placement | None:
        feasible = state.feasible(pod)
        node = self.pick(self.score(state, pod, feasible), feasible)
        if node is None:
            return None
        return Placement(node, self.gpus(state, node, pod))

    def gpus(self, state: ClusterState, node: int, pod: Pod) -> tuple[int, ...]:
        """The GPUs the pod takes on the chosen node."""
        return best_fit_gpus(state, node, pod)

    def pick(self, score: IntArray, feasible: BoolArray) -> int | None:
        """The feasible node with the highest score, ties to the lowest rank; None if none."""
        if len(self._bonus) != len(score):
            raise RuntimeError(f"{self.name}: reset() was not called for this cluster")
        if not feasible.any():
            return None
        # a score may be negative (BestFit on a node larger than the largest pod shape):
        # infeasible nodes get a key below every feasible one, not a fixed -1
        key = score * (len(score) + 1) + self._bonus
        key = np.where(feasible, key, key.min() - 1)
        return int(np.argmax(key))

    def observe(self, state: ClusterState, pod: Pod, placement: Placement) -> None:
        return None


__all__ = [
    "DEFAULT_CPU_REQUEST",
    "ScoredPolicy",
    "best_fit_gpus",
    "random_gpus",
    "scored_cpu",
    "tie_rank",
]
