"""The mutable cluster a simulation fills: free CPU, memory and GPU shares as numpy arrays.

Index ``i`` of every per-node array is ``nodes[i]``. Besides the arrays named in the
interface, the state keeps per-node summaries that a placement changes for one node only
(fully free GPUs, the largest free share on one GPU, total free GPU share), so a policy can
test and score every node for a pod with whole-array operations instead of a Python loop.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from wlmap.placement.nodes import Node
from wlmap.placement.packing.pods import MILLI, Placement, Pod

IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]


class ClusterState:
    """Free resources of every node; ``assign`` is the only way they change.

    Attributes:
        nodes: the nodes, in the order every array follows.
        models: the distinct GPU models, sorted.
        cpu_free: free CPU per node in millicores.
        memory_free: free memory per node in MiB.
        gpu_free: free share per GPU in thousandths, shape (nodes, most GPUs on a node);
            slots beyond a node's GPU count hold -1.
        node_model: index into ``models`` per node, -1 for a node without GPUs.
        gpu_count: GPUs per node.
        full_free: fully free GPUs per node.
        max_free: the largest free share on one GPU of the node (-1 without GPUs).
        gpu_free_total: the sum of free shares over the node's GPUs.
        pod_count: pods placed on the node so far.
        gpu_capacity_milli: sum over nodes of ``gpus * 1000``.
        allocated_gpu_milli: GPU share placed so far, in thousandths.
    """

    def __init__(self, nodes: Sequence[Node]) -> None:
        self.nodes: tuple[Node, ...] = tuple(nodes)
        self.models: tuple[str, ...] = tuple(
            sorted({n.gpu_model for n in self.nodes if n.gpu_model and n.gpus > 0})
        )
        index = {m: i for i, m in enumerate(self.models)}
        width = max((n.gpus for n in self.nodes), default=0)
        self.cpu_free: IntArray = np.array([n.cpu_milli for n in self.nodes], dtype=np.int64)
        self.memory_free: IntArray = np.array([n.memory_mib for n in self.nodes], dtype=np.int64)
        self.gpu_count: IntArray = np.array([n.gpus for n in self.nodes], dtype=np.int64)
        self.node_model: IntArray = np.array(
            [index[n.gpu_model] if n.gpu_model and n.gpus > 0 else -1 for n in self.nodes],
            dtype=np.int64,
        )
        slots = np.arange(width, dtype=np.int64)
        self.gpu_free: IntArray = np.where(slots[None, :] < self.gpu_count[:, None], MILLI, -1)
        self.gpu_free = self.gpu_free.astype(np.int64).reshape(len(self.nodes), width)
        self.full_free: IntArray = self.gpu_count.copy()
        self.max_free: IntArray = np.where(self.gpu_count > 0, MILLI, -1).astype(np.int64)
        self.gpu_free_total: IntArray = self.gpu_count * MILLI
        self.pod_count: IntArray = np.zeros(len(self.nodes), dtype=np.int64)
        self.gpu_capacity_milli: int = int(self.gpu_count.sum()) * MILLI
        self.allocated_gpu_milli: int = 0
        self._model_masks: dict[frozenset[str] | None, BoolArray] = {}

    @classmethod
    def from_nodes(cls, nodes: Sequence[Node]) -> ClusterState:
        """An empty cluster of these nodes."""
        return cls(nodes)

    def copy(self) -> ClusterState:
        """An independent copy: assigning to it leaves this state unchanged."""
        other = object.__new__(ClusterState)
        other.nodes, other.models = self.nodes, self.models
        for name in (
            "cpu_free", "memory_free", "gpu_count", "node_model", "gpu_free",
            "full_free", "max_free", "gpu_free_total", "pod_count",
        ):  # fmt: skip
            setattr(other, name, getattr(self, name).copy())
        other.gpu_capacity_milli = self.gpu_capacity_milli
        other.allocated_gpu_milli = self.allocated_gpu_milli
        other._model_masks = self._model_masks
        return other

    def model_ok(self, pod: Pod) -> BoolArray:
        """Nodes whose GPU model the pod accepts (every node for a CPU-only pod).

        A model restriction applies to GPU pods only, as in the published simulator; a
        CPU-only pod may run on any node.
        """
        if pod.num_gpu == 0:
            key: frozenset[str] | None = None
        else:
            key = pod.gpu_models
        mask = self._model_masks.get(key)
        if mask is None:
            if key is None:
                mask = np.ones(len(self.nodes), dtype=np.bool_)
            else:
                wanted = [i for i, m in enumerate(self.models) if m in key]
                mask = np.isin(self.node_model, np.array(wanted, dtype=np.int64))
            mask.setflags(write=False)
            self._model_masks[key] = mask
        return mask

    def feasible(self, pod: Pod) -> BoolArray:
        """Nodes where the pod fits: CPU, memory, GPU model, and GPU share.

        Whole GPUs need ``num_gpu`` fully free GPUs; a shared pod needs one GPU with at
        least ``gpu_milli`` free.
        """
        ok = (self.cpu_free >= pod.cpu_milli) & (self.memory_free >= pod.memory_mib)
        if pod.num_gpu == 0:
            return ok
        ok &= self.model_ok(pod)
        if pod.gpu_milli >= MILLI:
            ok &= self.full_free >= pod.num_gpu
        else:
            ok &= self.max_free >= pod.gpu_milli
        return ok

    def fits(self, pod: Pod, placement: Placement) -> str | None:
        """Why the placement is impossible, or None when it fits."""
        i = placement.node
        if not 0 <= i < len(self.nodes):
            return f"node index {i} is outside 0..{len(self.nodes) - 1}"
        if self.cpu_free[i] < pod.cpu_milli or self.memory_free[i] < pod.memory_mib:
            return f"node {self.nodes[i].name} lacks CPU or memory"
        if pod.num_gpu == 0:
            return None if not placement.gpus else "a CPU-only pod takes no GPU"
        if not self.model_ok(pod)[i]:
            return f"node {self.nodes[i].name} has a GPU model the pod does not accept"
        gpus = placement.gpus
        if len(gpus) != pod.num_gpu or len(set(gpus)) != len(gpus):
            return f"the pod needs {pod.num_gpu} distinct GPU(s), got {gpus}"
        if any(not 0 <= g < self.gpu_count[i] for g in gpus):
            return f"GPU index out of range for node {self.nodes[i].name}: {gpus}"
        if any(self.gpu_free[i, g] < pod.gpu_milli for g in gpus):
            return f"GPU(s) {gpus} of node {self.nodes[i].name} lack {pod.gpu_milli} milli"
        return None

    def assign(self, pod: Pod, placement: Placement) -> None:
        """Place the pod; raises ValueError when it does not fit."""
        problem = self.fits(pod, placement)
        if problem is not None:
            raise ValueError(f"cannot place pod {pod.name}: {problem}")
        i = placement.node
        self.cpu_free[i] -= pod.cpu_milli
        self.memory_free[i] -= pod.memory_mib
        self.pod_count[i] += 1
        if pod.num_gpu == 0:
            return
        row = self.gpu_free[i]
        for g in placement.gpus:
            row[g] -= pod.gpu_milli
        count = int(self.gpu_count[i])
        live = row[:count]
        self.full_free[i] = int((live == MILLI).sum())
        self.max_free[i] = int(live.max())
        self.gpu_free_total[i] = int(live.sum())
        self.allocated_gpu_milli += pod.gpu_demand_milli


__all__ = ["BoolArray", "ClusterState", "IntArray"]
