"""FGD: place each pod where it increases the expected GPU fragmentation least.

The policy of "Beware of Fragmentation" (USENIX ATC '23), as run in its published
simulator with ``-gpusel FGD``:

- Target workload: the pod shapes of the trace that cover 95 % of its pods, weighted by
  pod count, CPU-only pods included (see ``fragmentation``). The published simulator
  counts the trace before it is topped up to the run's size; the tuned list repeats
  trace pods under their own names, so counting each name once gives the same counts.
- Node score: ``int(100 * sigmoid((F_before - F_after) / 1000))`` where ``F`` is the
  node's expected fragmentation before and after placing the pod. The published
  scheduler keeps this integer, so nodes whose fragmentation increase differs by less than
  about 40 GPU-milli tie; ties go to the node that comes first in a per-seed random
  permutation of the nodes (the published runs prefix node names with such a permutation
  and pick the smallest name).
- GPU choice inside the node: a pod asking for whole GPUs takes the lowest-indexed fully
  free GPUs. A shared-GPU pod is tried on every GPU with room; the node's score is the best
  GPU's score and the pod takes that GPU, the lowest index on ties.

Scores are cached per pod shape and per node: a node's scores only change when a pod
lands on it, so after each placement only that node is recomputed, lazily, the next time
a pod of each shape arrives.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..cluster_state import ClusterState
from ..pods import Placement, Pod
from ._common import tie_rank
from .fragmentation import (
    FloatArray,
    IntArray,
    PodShape,
    TargetWorkload,
    fragmentation,
    pod_shape,
    target_workload,
)

__all__ = ["FGDPolicy", "distinct_pods"]

_MILLI = 1000


def distinct_pods(workload: Sequence[Pod]) -> list[Pod]:
    """Each pod name once: the trace behind a tuned list (top-ups repeat trace pods)."""
    return list({pod.name: pod for pod in workload}.values())


@dataclass
class _ShapeScores:
    """Cached per-node scores for one pod shape; valid where ``stamp == version``."""

    score: FloatArray
    gpu: IntArray
    stamp: IntArray


class FGDPolicy:
    """Fragmentation Gradient Descent node and GPU choice (see the module docstring)."""

    name = "fgd"

    def __init__(self) -> None:
        self._target: TargetWorkload | None = None
        self._rank: IntArray = np.zeros(0, dtype=np.int64)
        self._frag: FloatArray = np.zeros(0, dtype=np.float64)
        self._version: IntArray = np.zeros(0, dtype=np.int64)
        self._cache: dict[tuple[PodShape, int], _ShapeScores] = {}

    # -- hooks a derived policy may override -------------------------------------------

    def _build_target(self, state: ClusterState, workload: Sequence[Pod]) -> TargetWorkload:
        return target_workload(distinct_pods(workload), state.models)

    def _measure(
        self, cpu_free: IntArray, memory_free: IntArray, gpu_free: IntArray, node_model: IntArray
    ) -> FloatArray:
        """Expected fragmentation of ``k`` node states (lower is better)."""
        assert self._target is not None
        return fragmentation(self._target, cpu_free, gpu_free, node_model)

    def _penalty(self, state: ClusterState, pod: Pod, idx: IntArray) -> FloatArray | float:
        """Extra cost (GPU-milli) of placing ``pod`` on nodes ``idx``; FGD has none."""
        return 0.0

    def _gap_penalty(
        self, pod: Pod, gap: IntArray, cpu: IntArray, memory: IntArray
    ) -> FloatArray | float:
        """Extra cost (GPU-milli) of putting a shared pod on GPUs with ``gap`` milli free, on
        nodes with ``cpu`` and ``memory`` free before it."""
        return 0.0

    def _score(self, gain: FloatArray) -> FloatArray:
        """Score from the fragmentation decrease ``F_before - F_after`` (higher wins)."""
        sigmoid = 1.0 / (1.0 + np.exp(-gain / _MILLI))
        return np.floor(sigmoid * 100.0)

    # -- the policy protocol -----------------------------------------------------------

    def reset(self, state: ClusterState, workload: Sequence[Pod], seed: int) -> None:
        """Derive the target workload, the tie order and every node's fragmentation."""
        self._target = self._build_target(state, workload)
        n = len(state.nodes)
        self._rank = tie_rank(n, seed)
        self._frag = self._measure(
            state.cpu_free, state.memory_free, state.gpu_free, state.node_model
        )
        self._version = np.zeros(n, dtype=np.int64)
        self._cache = {}

    def place(self, state: ClusterState, pod: Pod) -> Placement | None:
        """Best-scoring feasible node; None when no node fits."""
        feasible = state.feasible(pod)
        if not feasible.any():
            return None
        scores = self._scores_for(state, pod, feasible)
        best = np.where(feasible, scores.score, -np.inf)
        top = np.flatnonzero(best == best.max())
        node = int(top[np.argmin(self._rank[top])]) if len(top) > 1 else int(top[0])
        return Placement(node=node, gpus=self._gpus(state, pod, node, int(scores.gpu[node])))

    def observe(self, state: ClusterState, pod: Pod, placement: Placement) -> None:
        """The node the pod landed on changed: refresh its fragmentation, expire its scores."""
        i = placement.node
        self._version[i] += 1
        self._frag[i] = self._measure(
            state.cpu_free[i : i + 1],
            state.memory_free[i : i + 1],
            state.gpu_free[i : i + 1],
            state.node_model[i : i + 1],
        )[0]

    # -- scoring -----------------------------------------------------------------------

    def _scores_for(self, state: ClusterState, pod: Pod, feasible: np.ndarray) -> _ShapeScores:
        key = (pod_shape(pod), pod.memory_mib)
        entry = self._cache.get(key)
        n = len(state.nodes)
        if entry is None:
            entry = _ShapeScores(
                score=np.full(n, -np.inf),
                gpu=np.zeros(n, dtype=np.int64),
                stamp=np.full(n, -1, dtype=np.int64),
            )
            self._cache[key] = entry
        stale = np.flatnonzero(feasible & (entry.stamp != self._version))
        if stale.size:
            score, gpu = self._compute(state, pod, stale)
            entry.score[stale] = score
            entry.gpu[stale] = gpu
            entry.stamp[stale] = self._version[stale]
        return entry

    def _compute(self, state: ClusterState, pod: Pod, idx: IntArray) -> tuple[FloatArray, IntArray]:
        """Scores (and, for shared pods, the chosen GPU) on feasible nodes ``idx``."""
        cpu = state.cpu_free[idx] - pod.cpu_milli
        memory = state.memory_free[idx] - pod.memory_mib
        gpu = state.gpu_free[idx]
        model = state.node_model[idx]
        before = self._frag[idx] - self._penalty(state, pod, idx)
        none = np.zeros(len(idx), dtype=np.int64)
        if pod.num_gpu == 0:
            return self._score(before - self._measure(cpu, memory, gpu, model)), none
        if pod.gpu_milli >= _MILLI:
            whole = gpu == _MILLI
            taken = whole & (np.cumsum(whole, axis=1) <= pod.num_gpu)
            after = self._measure(cpu, memory, np.where(taken, 0, gpu), model)
            return self._score(before - after), none
        # Shared pod: one candidate per GPU; a GPU with the same free milli as a
        # lower-indexed one gives the same state, so only the first of them is tried.
        k, g = gpu.shape
        room = gpu >= pod.gpu_milli
        same_earlier = np.triu(gpu[:, :, None] == gpu[:, None, :], k=1).any(axis=1)
        cand = room & ~same_earlier
        rows, cols = np.nonzero(cand)
        trial = gpu[rows].copy()
        trial[np.arange(len(rows)), cols] -= pod.gpu_milli
        after = self._measure(cpu[rows], memory[rows], trial, model[rows])
        on = idx[rows]
        after = after + self._gap_penalty(
            pod, gpu[rows, cols], state.cpu_free[on], state.memory_free[on]
        )
        table = np.full((k, g), -np.inf)
        table[rows, cols] = self._score(before[rows] - after)
        choice: IntArray = np.argmax(table, axis=1).astype(np.int64)
        return table[np.arange(k), choice], choice

    def _gpus(
        self, state: ClusterState, pod: Pod, node: int, shared_choice: int
    ) -> tuple[int, ...]:
        if pod.num_gpu == 0:
            return ()
        if pod.gpu_milli < _MILLI:
            return (shared_choice,)
        whole = np.flatnonzero(state.gpu_free[node] == _MILLI)
        return tuple(int(x) for x in whole[: pod.num_gpu])
