"""Per-node GPU series: what a node offers, what pods hold, what is free, and how much of
the free part the cluster's own pod shapes cannot use.

Nodes are read with the placement engine's reader (:func:`wlmap.placement.nodes.
nodes_from_objects`: allocatable ``nvidia.com/gpu``, the GPU model label, the labels) and
the fragmented part is the placement engine's FGD measure
(:func:`wlmap.placement.packing.fragmentation`) against a target workload made of the GPU
pods the exporter serves (their shapes, weighted by count). The API does not say which GPU
of a node holds which share, so the shares a node's pods hold are laid out as a device
plugin would bin them: largest first, each on the first GPU with room.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from wlmap.errors import WlmapError
from wlmap.metrics.exposition import escape, format_value
from wlmap.metrics.pod_facts import PodFacts
from wlmap.placement.nodes import Node, nodes_from_objects

__all__ = [
    "DEFAULT_DOMAIN_KEYS",
    "NodeState",
    "Shape",
    "domain_label",
    "fragmented_gpus",
    "free_per_gpu",
    "read_node",
]

DEFAULT_DOMAIN_KEYS = ("topology.kubernetes.io/zone", "nvidia.com/gpu.clique")
"""Topology keys given a label each by default: the zone, and the NVLink domain that
NVIDIA's GPU feature discovery writes; the operator passes its placement levels instead."""

Shape = tuple[int, int, int]
"""A GPU pod as the measure sees it: (cpu_milli, gpu_milli per GPU, GPUs)."""

_UNSAFE = re.compile(r"[^a-zA-Z0-9_]")


def domain_label(key: str) -> str:
    """The label name a topology key is written under, as kube-state-metrics names node
    labels: ``label_`` and the key with every other character than ``[a-zA-Z0-9_]`` as ``_``."""
    return "label_" + _UNSAFE.sub("_", key)


def read_node(obj: Mapping[str, Any]) -> Node | str:
    """The placement engine's node of one Node object, or what is wrong with it."""
    try:
        return nodes_from_objects([dict(obj)], file="Node")[0]
    except WlmapError as exc:
        return str(exc)


def free_per_gpu(gpus: int, pods: Iterable[PodFacts]) -> list[int]:
    """Free thousandths of each GPU of a node once ``pods`` hold their shares."""
    free = [1000] * gpus
    shares = sorted((s for p in pods for s in p.devices), reverse=True)
    for share in shares:
        slot = next((i for i, room in enumerate(free) if room >= share), None)
        if slot is None and free:
            slot = max(range(len(free)), key=free.__getitem__)
        if slot is not None:
            free[slot] = max(0, free[slot] - share)
    return free


def pod_shape(pod: PodFacts) -> Shape | None:
    """The shape of a GPU pod, or None for a pod without GPUs."""
    if not pod.devices:
        return None
    if len(pod.devices) == 1:
        return (pod.cpu_milli, pod.devices[0], 1)
    return (pod.cpu_milli, min(pod.devices), len(pod.devices))


@dataclass
class NodeState:
    """A node, its label part (node and domain labels, rendered) and the pods that hold
    room on it now."""

    node: Node
    labels: str
    pods: dict[tuple[str, str], PodFacts] = field(default_factory=dict)
    lines: tuple[str, str, str] | None = None  # allocatable, allocated and free samples

    @classmethod
    def of(cls, node: Node, keys: tuple[str, ...]) -> NodeState:
        """The state of a node, labelled by the topology ``keys``."""
        domains = "".join(f',{domain_label(k)}="{escape(node.labels.get(k, ""))}"' for k in keys)
        return cls(node, f'{{node="{escape(node.name)}"{domains}}}')

    def allocated(self) -> float:
        """GPUs its pods hold."""
        return sum(p.gpus for p in self.pods.values())

    def render(self) -> tuple[str, str, str]:
        """Its allocatable, allocated and free sample lines (rendered once per change)."""
        if self.lines is None:
            allocated = self.allocated()
            free = max(0.0, self.node.gpus - allocated)
            self.lines = (
                f"wlmap_node_gpus_allocatable{self.labels} {format_value(self.node.gpus)}\n",
                f"wlmap_node_gpus_allocated{self.labels} {format_value(allocated)}\n",
                f"wlmap_node_gpus_free{self.labels} {format_value(free)}\n",
            )
        return self.lines

    def cpu_free(self) -> int:
        """CPU millicores its pods leave."""
        return self.node.cpu_milli - sum(p.cpu_milli for p in self.pods.values())


def fragmented_gpus(states: list[NodeState], shapes: Mapping[Shape, int]) -> list[float]:
    """The FGD measure of each node, in GPUs, against the pod shapes counted in ``shapes``.

    Raises:
        ImportError: numpy (the placement extra) is not installed.
    """
    if not states:
        return []
    import numpy as np  # noqa: PLC0415 - only node series need it

    from wlmap.placement.packing import Pod, fragmentation, target_workload  # noqa: PLC0415

    models = sorted({s.node.gpu_model for s in states if s.node.gpu_model})
    pods = [
        pod
        for i, ((cpu, milli, count_gpus), count) in enumerate(sorted(shapes.items()))
        for pod in [Pod(f"shape{i}", cpu, 0, count_gpus, milli)] * count
    ]
    target = target_workload(pods, models)
    width = max(1, *(s.node.gpus for s in states))
    free = np.full((len(states), width), -1, dtype=np.int64)
    for row, state in enumerate(states):
        free[row, : state.node.gpus] = free_per_gpu(state.node.gpus, state.pods.values())
    index = {m: i for i, m in enumerate(models)}
    model = np.array([index.get(s.node.gpu_model or "", -1) for s in states], dtype=np.int64)
    cpu = np.array([s.cpu_free() for s in states], dtype=np.int64)
    milli = fragmentation(target, cpu, free, model)
    return [float(v) / 1000 for v in milli]
