"""Node pressure: how much of a node the trace's narrower pod shapes will need.

A pod shape *fits* a node when the empty node has the GPUs, CPU, memory and GPU model it
asks for. Some shapes fit fewer nodes than their GPU count alone allows: a pod with a model
list, or one asking more CPU or memory than most nodes of its size have (on openb, the
8-GPU pods asking 120 cores fit only the 39 nodes with 128). Those *restricted* shapes
compete for the few nodes they fit, and every other pod that lands there takes room they
cannot find elsewhere.

Each restricted shape's GPU demand in the trace is spread evenly over the GPUs of the
nodes it fits and scaled to one cluster's worth of arrivals; a node's pressure from a
shape is that demand per GPU. A pod pays, per GPU-milli it asks, the pressure of every
restricted shape whose nodes are a strict subset of its own: it has somewhere else to go
and they do not. Two shapes that fit the same nodes do not charge each other.

This is static knowledge of the cluster and the trace's shape counts, the same that FGD's
target workload uses; it never looks at the order of the pods.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

import numpy as np

from wlmap.placement.nodes import Node
from wlmap.placement.packing.cluster_state import BoolArray
from wlmap.placement.packing.pods import MILLI, Pod
from wlmap.placement.packing.policies.fragmentation import FloatArray

__all__ = ["NodePressure", "ShapeKey"]

ShapeKey = tuple[int, int, int, frozenset[str] | None]
"""What decides the nodes a pod fits: (cpu_milli, memory_mib, num_gpu, gpu_models)."""


def _key(pod: Pod) -> ShapeKey:
    return (pod.cpu_milli, pod.memory_mib, pod.num_gpu, pod.gpu_models)


class NodePressure:
    """Per node, the GPU demand per GPU of restricted shapes (see the module docstring).

    Args:
        nodes: the cluster's nodes (their capacities; the state they are in does not count).
        trace: the distinct pods of the trace (each counted once), whose shapes are weighed.
    """

    def __init__(self, nodes: Sequence[Node], trace: Sequence[Pod]) -> None:
        self._cpu = np.array([n.cpu_milli for n in nodes], dtype=np.int64)
        self._memory = np.array([n.memory_mib for n in nodes], dtype=np.int64)
        self._gpus = np.array([n.gpus for n in nodes], dtype=np.int64)
        models = sorted({n.gpu_model for n in nodes if n.gpu_model and n.gpus > 0})
        self._model_index = {m: i for i, m in enumerate(models)}
        self._model = np.array(
            [self._model_index.get(n.gpu_model, -1) if n.gpu_model else -1 for n in nodes],
            dtype=np.int64,
        )
        demand: defaultdict[bytes, float] = defaultdict(float)
        masks: dict[bytes, BoolArray] = {}
        total = 0.0
        for pod in trace:
            if pod.num_gpu == 0:
                continue
            total += pod.gpu_demand_milli
            fits = self.fits(pod)
            # a shape that fits every node with enough GPUs competes with no one in particular
            if not fits.any() or np.array_equal(fits, self._gpus >= pod.num_gpu):
                continue
            packed = np.packbits(fits).tobytes()
            masks[packed] = fits
            demand[packed] += pod.gpu_demand_milli
        capacity = float(self._gpus.sum()) * MILLI
        scale = capacity / total if total else 0.0
        self._groups: list[tuple[BoolArray, FloatArray]] = []
        for packed, fits in masks.items():
            per_gpu = demand[packed] * scale / (float(self._gpus[fits].sum()) * MILLI)
            self._groups.append((fits, np.where(fits, per_gpu, 0.0)))
        self._cache: dict[ShapeKey, FloatArray] = {}

    def fits(self, pod: Pod) -> BoolArray:
        """Nodes that could hold ``pod`` when empty."""
        fits: BoolArray = (
            (self._gpus >= pod.num_gpu)
            & (self._cpu >= pod.cpu_milli)
            & (self._memory >= pod.memory_mib)
        )
        if pod.gpu_models is not None and pod.num_gpu > 0:
            accepted = [self._model_index[m] for m in pod.gpu_models if m in self._model_index]
            fits &= np.isin(self._model, np.array(accepted, dtype=np.int64))
        return fits

    def pressure(self, pod: Pod) -> FloatArray:
        """Per node, the pressure ``pod`` pays per GPU-milli it asks (0 for CPU-only pods)."""
        key = _key(pod)
        cached = self._cache.get(key)
        if cached is None:
            cached = np.zeros(len(self._gpus), dtype=np.float64)
            if pod.num_gpu > 0:
                own = self.fits(pod)
                for fits, per_gpu in self._groups:
                    if not (fits & ~own).any() and not np.array_equal(fits, own):
                        cached = cached + per_gpu
            cached.setflags(write=False)
            self._cache[key] = cached
        return cached
