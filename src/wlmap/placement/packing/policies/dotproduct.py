"""DotProduct (Tetris alignment) as the FGD paper's simulator runs it.

The node's free resources and the pod's request are two-dimensional vectors, CPU and total
GPU milli (``-dimext merge``), each divided by the largest node shape (128 cores, 8 GPUs;
``-norm max``). The score is ``int(100 * (1 - dot / 2))``: the published plugin prefers the
node whose free vector aligns *least* with the pod, which packs pods onto nodes that are
already full in the pod's dimensions. Ties (the score is an integer) go to the per-seed
node rank. Inside the node the GPU choice is ``best`` (``-gpusel best``): the tightest GPU
for a shared pod, the lowest-indexed free GPUs for whole ones. A pod without a CPU request
is scored as 100 millicores.
"""

from __future__ import annotations

import numpy as np

from wlmap.placement.packing.cluster_state import BoolArray, ClusterState, IntArray
from wlmap.placement.packing.pods import Pod
from wlmap.placement.packing.policies._common import ScoredPolicy, scored_cpu

MAX_CPU_MILLI = 128_000.0
MAX_GPU_MILLI = 8_000.0


class DotProductPolicy(ScoredPolicy):
    """Least alignment of free and requested (CPU, GPU) vectors (see the module docstring)."""

    name = "dotproduct"

    def score(self, state: ClusterState, pod: Pod, feasible: BoolArray) -> IntArray:
        pod_cpu = scored_cpu(pod) / MAX_CPU_MILLI
        pod_gpu = pod.gpu_demand_milli / MAX_GPU_MILLI
        dot = (state.cpu_free / MAX_CPU_MILLI) * pod_cpu + (
            state.gpu_free_total / MAX_GPU_MILLI
        ) * pod_gpu
        result: IntArray = np.trunc(100.0 * (1.0 - dot / 2.0)).astype(np.int64)
        # The published plugin gives up (lowest score) where the scored CPU does not fit.
        result[state.cpu_free < scored_cpu(pod)] = 0
        return result


__all__ = ["DotProductPolicy"]
