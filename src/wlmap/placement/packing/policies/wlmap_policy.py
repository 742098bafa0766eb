"""wlmap's placement policy: FGD that also sees stranded CPU and memory, scarce nodes, GPU gaps.

FGD (``fgd.py``) scores a node by how much a placement raises its expected GPU
fragmentation. On the openb traces three kinds of loss are left that its measure misses;
this policy adds one term for each, in GPU-milli like the measure itself, and otherwise
scores, quantises and breaks ties exactly as FGD does (see ``FGDPolicy``):

1. **CPU and memory stranding.** A node's free GPUs are stranded when its free CPU or
   memory cannot feed them. Each GPU's free share *needs* some CPU and memory: a whole
   free GPU ``1000 * R``, with ``R`` the CPU the trace's GPU pods ask per GPU-milli (``M``
   for memory), a partly used GPU what the shared sizes that fit its gap ask
   (``_gap_needs``). The measure adds
   ``cpu_weight * max(0, CPU needed - free CPU) / R`` and
   ``memory_weight * max(0, memory needed - free memory) / M``. FGD only notices when a
   target shape stops fitting (and never for memory), which is too late for CPU-heavy
   shared pods on 8-GPU nodes and for the gap a shared pod leaves on a node it drained.
2. **Node pressure.** Some shapes of the trace fit only a few nodes: a model list, or more
   CPU or memory than most nodes of their GPU count have (on multigpu40, the 8-GPU pods
   asking 120 cores fit only the 39 nodes with 128). Each such shape's GPU demand, spread
   over the GPUs of the nodes it fits and scaled to a full cluster's worth of arrivals, is
   the *pressure* it puts on those nodes (``_node_pressure``). A pod pays
   ``pressure_weight * pressure * its GPU demand`` for a node, summed over the shapes whose
   nodes are a strict subset of its own, so it leaves contested nodes to the pods that
   cannot go elsewhere. Without such shapes nothing is paid.
3. **Spoiled GPU gaps.** A shared pod put on a GPU changes the GPU's gap (its free
   milli). The trace's shared sizes have a best packing into GPUs, and its LP dual prices
   every size in GPUs (``_share_plan``). A placement that leaves a gap the best packing
   could not end with pays ``plan_weight * 1000 * cost`` GPU-milli, where ``cost`` is the
   price of the gap before, less the pod's price and the price of the gap after (in GPUs;
   0 when the placement follows the packing). A gap's price counts only the pods of the
   trace that the node's free CPU and memory can still feed, before and after the pod
   (``_fed_gaps``): a gap on a node the pod drains is worth nothing. With the weight of
   10 this term decides where shared pods go; FGD's measure decides among equally good
   gaps. A pod that is not shared (whole GPUs or CPU only) leaves the gaps' sizes alone
   but may take the CPU or memory they need: it pays ``drain_weight * 1000`` times what
   the node's gaps lose in price that way, in the same unit.

What the policy knows: the cluster's state, the pod it places, and the list of pods the run
was reset with, of which it uses only the distribution (each pod name counted once: the
shape counts, FGD's target, the CPU and memory per GPU-milli, the node pressure and the
share prices).
It never looks at the order of that list, at pods still to come, or at the run's length.

Decision 0015 gives the figures that chose each term and its weight; decision 0035 the
node pressure, decision 0039 the gaps' CPU and memory and decision 0038 what a gap needs.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import numpy as np

from ..cluster_state import ClusterState
from ..pods import Pod
from ._fed_gaps import FedGaps
from ._gap_needs import gap_needs
from ._node_pressure import NodePressure
from ._share_plan import SharePlan, share_plan
from .fgd import FGDPolicy, distinct_pods
from .fragmentation import FloatArray, IntArray, TargetWorkload

__all__ = ["WlmapPolicy"]

_MILLI = 1000


class WlmapPolicy(FGDPolicy):
    """FGD plus CPU stranding, node pressure and spoiled GPU gaps (see the module docstring).

    Args:
        cpu_weight: weight of the CPU-stranding term.
        memory_weight: weight of the memory-stranding term.
        pressure_weight: weight of the node-pressure term.
        plan_weight: weight of the spoiled-gap term (1: one GPU-milli of cost per GPU-milli spoiled).
        drain_weight: weight of the cost a pod that is not shared pays for the gaps it drains.
    """

    name = "wlmap"

    def __init__(
        self,
        cpu_weight: float = 2.0,
        memory_weight: float = 1.0,
        pressure_weight: float = 1.0,
        plan_weight: float = 10.0,
        drain_weight: float = 10.0,
    ) -> None:
        super().__init__()
        self.cpu_weight = cpu_weight
        self.memory_weight = memory_weight
        self.pressure_weight = pressure_weight
        self.plan_weight = plan_weight
        self.drain_weight = drain_weight
        self._cpu_per_gpu = 1.0
        self._memory_per_gpu = 1.0
        self._pressure = NodePressure([], [])
        self._plan: SharePlan = share_plan([], [])
        self._gaps = FedGaps(self._plan, [])
        self._cpu_need: FloatArray = np.arange(_MILLI + 1, dtype=np.float64)
        self._memory_need: FloatArray = np.arange(_MILLI + 1, dtype=np.float64)

    def _build_target(self, state: ClusterState, workload: Sequence[Pod]) -> TargetWorkload:
        trace = distinct_pods(workload)
        gpu_pods = [p for p in trace if p.num_gpu > 0]
        demand = sum(p.gpu_demand_milli for p in gpu_pods)
        cpu = sum(p.cpu_milli for p in gpu_pods)
        self._cpu_per_gpu = cpu / demand if demand and cpu else 1.0
        memory = sum(p.memory_mib for p in gpu_pods)
        self._memory_per_gpu = memory / demand if demand and memory else 1.0
        self._pressure = NodePressure(state.nodes, trace)
        shared_pods = [p for p in trace if p.shared]
        shared = Counter(p.gpu_milli for p in shared_pods)
        sizes = sorted(shared)
        self._plan = share_plan(sizes, [shared[s] for s in sizes])
        self._gaps = FedGaps(self._plan, shared_pods)
        self._cpu_need, self._memory_need = gap_needs(
            self._plan, shared_pods, self._cpu_per_gpu, self._memory_per_gpu
        )
        return super()._build_target(state, workload)

    def _measure(
        self, cpu_free: IntArray, memory_free: IntArray, gpu_free: IntArray, node_model: IntArray
    ) -> FloatArray:
        base = super()._measure(cpu_free, memory_free, gpu_free, node_model)
        share = np.maximum(gpu_free, 0)  # slots beyond the node's GPUs hold -1
        cpu_need = self._cpu_need[share].sum(axis=1)
        memory_need = self._memory_need[share].sum(axis=1)
        stranded = np.maximum(0.0, cpu_need - np.maximum(cpu_free, 0)) / self._cpu_per_gpu
        starved = np.maximum(0.0, memory_need - np.maximum(memory_free, 0)) / self._memory_per_gpu
        result: FloatArray = base + self.cpu_weight * stranded + self.memory_weight * starved
        return result

    def _penalty(self, state: ClusterState, pod: Pod, idx: IntArray) -> FloatArray | float:
        drain = self._drain(state, pod, idx) if not pod.shared and self.drain_weight else 0.0
        if pod.num_gpu == 0:
            return drain
        cost: FloatArray = self.pressure_weight * self._pressure.pressure(pod)[idx]
        return cost * pod.gpu_demand_milli + drain

    def _drain(self, state: ClusterState, pod: Pod, idx: IntArray) -> FloatArray | float:
        """What the gaps of nodes ``idx`` lose in price when ``pod`` takes CPU and memory
        there, in GPU-milli (a shared pod pays this for its own GPU in ``_gap_penalty``)."""
        gaps = state.gpu_free[idx]
        partial = (gaps > 0) & (gaps < _MILLI)  # whole GPUs are the stranding terms' part
        if not partial.any():
            return 0.0
        cpu = np.broadcast_to(state.cpu_free[idx][:, None], gaps.shape)
        memory = np.broadcast_to(state.memory_free[idx][:, None], gaps.shape)
        gap = np.maximum(gaps, 0)
        before = self._gaps.value(gap, cpu, memory)
        after = self._gaps.value(gap, cpu - pod.cpu_milli, memory - pod.memory_mib)
        lost: FloatArray = np.where(partial, before - after, 0.0).sum(axis=1)
        return self.drain_weight * _MILLI * lost

    def _gap_penalty(
        self, pod: Pod, gap: IntArray, cpu: IntArray, memory: IntArray
    ) -> FloatArray | float:
        cost: FloatArray = self.plan_weight * _MILLI * self._gaps.cost(pod, gap, cpu, memory)
        return cost
