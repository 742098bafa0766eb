"""GPU Packing: shared GPUs first, then free GPUs on used nodes, then empty nodes.

As the FGD paper's simulator defines it, the integer score of a feasible node for a GPU
pod is, from best to worst:

1. the pod can share a partly used GPU: ``max(100 - free% / 10, 50)``, where ``free%`` is
   the chosen GPU's free share in percent (the fuller the GPU, the higher the score);
2. the pod needs fully free GPUs on a node already in use: ``max(50 - GPUs taken, 33)``;
3. every GPU of the node is free: ``max(33 - free GPUs, free GPUs)``, which prefers
   nodes with fewer GPUs.

The GPUs considered are the node's GPUs sorted by free share, least first (index order on
ties), each taken if the pod's per-GPU share fits. A CPU-only pod scores 0 everywhere, so
it goes to the first feasible node in the per-seed rank. Ties go to that rank too. Inside
the node the GPU choice is ``best``: the tightest GPU for a shared pod, the
lowest-indexed free GPUs for whole ones.
"""

from __future__ import annotations

import numpy as np

from wlmap.placement.packing.cluster_state import BoolArray, ClusterState, IntArray
from wlmap.placement.packing.pods import MILLI, Pod
from wlmap.placement.packing.policies._common import ScoredPolicy


class PackingPolicy(ScoredPolicy):
    """GPU packing by the three cases above (see the module docstring)."""

    name = "packing"

    def score(self, state: ClusterState, pod: Pod, feasible: BoolArray) -> IntArray:
        if pod.num_gpu == 0:
            return np.zeros(len(state.nodes), dtype=np.int64)
        full = state.full_free
        idle = full == state.gpu_count
        score = np.maximum(33 - full, full)
        if pod.gpu_milli < MILLI:
            # The least free GPU that fits the share is a partly used one, if any fits.
            gpu = state.gpu_free
            partial = np.where((gpu >= pod.gpu_milli) & (gpu < MILLI), gpu, MILLI + 1).min(axis=1)
            shares = partial <= MILLI
            case1 = np.maximum(100 - (partial * 100 // MILLI) // 10, 50)
            used = np.where(shares, case1, 49)
        else:
            used = np.full(len(state.nodes), max(50 - pod.num_gpu, 33), dtype=np.int64)
        result: IntArray = np.where(idle, score, used)
        return result


__all__ = ["PackingPolicy"]
