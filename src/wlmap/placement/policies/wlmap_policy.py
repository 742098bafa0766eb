"""wlmap's placement policy: FGD that also sees stranded CPU and memory, scarce models, GPU gaps.

FGD (``fgd.py``) scores a node by how much a placement raises its expected GPU
fragmentation. On the openb traces three kinds of loss are left that its measure misses;
this policy adds one term for each, in GPU-milli like the measure itself, and otherwise
scores, quantises and breaks ties exactly as FGD does (see ``FGDPolicy``):

1. **CPU and memory stranding.** A node's free GPUs are stranded when its free CPU or
   memory cannot feed them. With ``R`` the CPU the trace's GPU pods ask per GPU-milli and
   ``M`` their memory per GPU-milli, the measure adds
   ``cpu_weight * max(0, free GPU-milli - free CPU / R)`` and
   ``memory_weight * max(0, free GPU-milli - free memory / M)``. FGD only notices when a
   target shape stops fitting (and never for memory), which is too late for CPU-heavy
   shared pods on 8-GPU nodes and for the gap a shared pod leaves on a node it drained.
2. **Scarce GPU models.** Pods with a model list compete for the models they accept. A
   model's *pressure* is the GPU demand that model-restricted pods put on it (spread over
   the models they accept in proportion to capacity) per GPU of the model, scaled to a
   full cluster's worth of arrivals. A pod that accepts any model pays
   ``model_weight * pressure * its GPU demand`` for a node of that model, so it leaves
   contested models to the pods that need them. Traces without model lists pay nothing.
3. **Spoiled GPU gaps.** A shared pod put on a GPU changes the GPU's gap (its free
   milli). The trace's shared sizes have a best packing into GPUs, and its LP dual prices
   every size in GPUs (``_share_plan``). A placement that leaves a gap the best packing
   could not end with pays ``plan_weight * 1000 * cost`` GPU-milli, where ``cost`` is the
   price of the gap before, less the pod's price and the price of the gap after (in GPUs;
   0 when the placement follows the packing). With the weight of 10 this term decides
   where shared pods go; FGD's measure decides among equally good gaps.

What the policy knows: the cluster's state, the pod it places, and the list of pods the run
was reset with, of which it uses only the distribution (each pod name counted once: the
shape counts, FGD's target, the CPU and memory per GPU-milli, the model pressure and the
share prices).
It never looks at the order of that list, at pods still to come, or at the run's length.

Decision 0015 gives the figures that chose each term and its weight.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import numpy as np

from ..model import Pod
from ..state import ClusterState
from ._share_plan import SharePlan, share_plan
from .fgd import FGDPolicy, distinct_pods
from .fragmentation import FloatArray, IntArray, TargetWorkload

__all__ = ["WlmapPolicy"]

_MILLI = 1000


class WlmapPolicy(FGDPolicy):
    """FGD plus CPU stranding, model pressure and spoiled GPU gaps (see the module docstring).

    Args:
        cpu_weight: weight of the CPU-stranding term.
        memory_weight: weight of the memory-stranding term.
        model_weight: weight of the model-pressure term.
        plan_weight: weight of the spoiled-gap term (1: one GPU-milli of cost per GPU-milli spoiled).
    """

    name = "wlmap"

    def __init__(
        self,
        cpu_weight: float = 2.0,
        memory_weight: float = 1.0,
        model_weight: float = 1.0,
        plan_weight: float = 10.0,
    ) -> None:
        super().__init__()
        self.cpu_weight = cpu_weight
        self.memory_weight = memory_weight
        self.model_weight = model_weight
        self.plan_weight = plan_weight
        self._cpu_per_gpu = 1.0
        self._memory_per_gpu = 1.0
        self._pressure: FloatArray = np.zeros(1, dtype=np.float64)
        self._plan: SharePlan = share_plan([], [])

    def _build_target(self, state: ClusterState, workload: Sequence[Pod]) -> TargetWorkload:
        trace = distinct_pods(workload)
        gpu_pods = [p for p in trace if p.num_gpu > 0]
        demand = sum(p.gpu_demand_milli for p in gpu_pods)
        cpu = sum(p.cpu_milli for p in gpu_pods)
        self._cpu_per_gpu = cpu / demand if demand and cpu else 1.0
        memory = sum(p.memory_mib for p in gpu_pods)
        self._memory_per_gpu = memory / demand if demand and memory else 1.0
        self._pressure = _model_pressure(state, trace)
        shared = Counter(p.gpu_milli for p in trace if p.shared)
        sizes = sorted(shared)
        self._plan = share_plan(sizes, [shared[s] for s in sizes])
        return super()._build_target(state, workload)

    def _measure(
        self, cpu_free: IntArray, memory_free: IntArray, gpu_free: IntArray, node_model: IntArray
    ) -> FloatArray:
        base = super()._measure(cpu_free, memory_free, gpu_free, node_model)
        free = np.maximum(gpu_free, 0).sum(axis=1)
        stranded = np.maximum(0.0, free - np.maximum(cpu_free, 0) / self._cpu_per_gpu)
        starved = np.maximum(0.0, free - np.maximum(memory_free, 0) / self._memory_per_gpu)
        result: FloatArray = base + self.cpu_weight * stranded + self.memory_weight * starved
        return result

    def _penalty(self, state: ClusterState, pod: Pod, idx: IntArray) -> FloatArray | float:
        if pod.num_gpu == 0 or pod.gpu_models:
            return 0.0
        cost: FloatArray = (
            self.model_weight * self._pressure[state.node_model[idx]] * pod.gpu_demand_milli
        )
        return cost

    def _gap_penalty(self, pod: Pod, gap: IntArray) -> FloatArray | float:
        cost: FloatArray = self.plan_weight * _MILLI * self._plan.cost(pod.gpu_milli, gap)
        return cost


def _model_pressure(state: ClusterState, trace: Sequence[Pod]) -> FloatArray:
    """Per model index (last entry: no model, 0) the GPU demand restricted pods put on it."""
    count = len(state.models)
    capacity = np.array(
        [float(state.gpu_count[state.node_model == m].sum()) * _MILLI for m in range(count)],
        dtype=np.float64,
    )
    demand = np.zeros(count, dtype=np.float64)
    for pod in trace:
        if pod.num_gpu == 0 or not pod.gpu_models:
            continue
        accepted = [m for m, name in enumerate(state.models) if name in pod.gpu_models]
        if not accepted or capacity[accepted].sum() == 0:
            continue
        demand[accepted] += pod.gpu_demand_milli * capacity[accepted] / capacity[accepted].sum()
    total = sum(p.gpu_demand_milli for p in trace)
    scale = capacity.sum() / total if total else 0.0
    pressure = np.where(capacity > 0, demand / np.maximum(capacity, 1.0), 0.0) * scale
    return np.append(pressure, 0.0)
