"""A machine pods are placed on: the node every placement engine starts from.

A plain frozen record; readers check its values where data enters (:mod:`.kube_nodes`, the
openb trace reader), so the engines can trust them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class Node:
    """A machine the pods are placed on.

    Attributes:
        name: node name, unique in a cluster.
        cpu_milli: allocatable CPU in millicores.
        memory_mib: allocatable memory in MiB.
        gpus: whole GPUs on the node (0 for CPU-only nodes).
        gpu_model: the GPU model, e.g. ``"G2"`` or ``"T4"``; None when the node has no GPU.
        labels: node labels, kept for topology-aware work.
        taints: node taints, kept for later.
    """

    name: str
    cpu_milli: int
    memory_mib: int
    gpus: int
    gpu_model: str | None
    labels: Mapping[str, str] = field(default_factory=dict)
    taints: tuple[Mapping[str, str], ...] = ()


__all__ = ["Node"]
