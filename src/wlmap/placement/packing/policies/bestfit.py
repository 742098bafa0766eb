"""BestFit: the node left with the least weighted free CPU and GPU after the pod.

As the FGD paper's simulator defines it: for each feasible node

    leftover = 0.5 * (free CPU - pod CPU) / 128,000 + 0.5 * (free GPU milli - pod GPU milli) / 8,000

where free GPU milli sums the node's GPUs and 128 cores and 8 GPUs are the largest node
shapes. The score is ``int(100 * (1 - leftover))`` (kept an integer, as kube-scheduler
scores are, which makes near-equal nodes tie); the highest score wins, ties go to the
per-seed node rank. The scheduler's min-max normalisation of the scores keeps their order
and ties, so it is left out. Inside the node the GPU choice is ``best``: the tightest GPU
for a shared pod, the lowest-indexed free GPUs for whole ones. A pod without a CPU request
is scored as 100 millicores, as kube-scheduler does.
"""

from __future__ import annotations

import numpy as np

from wlmap.placement.packing.cluster_state import BoolArray, ClusterState, IntArray
from wlmap.placement.packing.pods import Pod
from wlmap.placement.packing.policies._common import ScoredPolicy, scored_cpu

MAX_CPU_MILLI = 128_000.0
MAX_GPU_MILLI = 8_000.0


class BestFitPolicy(ScoredPolicy):
    """Weighted best fit over CPU and GPU (see the module docstring)."""

    name = "bestfit"

    def score(self, state: ClusterState, pod: Pod, feasible: BoolArray) -> IntArray:
        cpu = (state.cpu_free - scored_cpu(pod)) / MAX_CPU_MILLI * 0.5
        gpu = (state.gpu_free_total - pod.gpu_demand_milli) / MAX_GPU_MILLI * 0.5
        # Same operation order as the published score, so the truncation ties the same nodes.
        result: IntArray = np.trunc((1.0 - (cpu + gpu)) * 100.0).astype(np.int64)
        return result


__all__ = ["BestFitPolicy"]
