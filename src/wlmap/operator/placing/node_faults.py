"""Which nodes are faulty: a pure reading of a node, for the capacity the plans read (a
faulty node is left out of them as a cordoned one is) and for the evictions of
``placement_faults``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["GPU_CONDITION", "GPU_TAINT", "fault_of", "without_faulty"]

GPU_TAINT = "wlmap.dev/gpu-unhealthy"
GPU_CONDITION = "GPUUnhealthy"
_TAINTS = {
    "node.kubernetes.io/unreachable": "Unreachable",
    "node.kubernetes.io/not-ready": "NotReady",
    GPU_TAINT: "GPUUnhealthy",
}


def fault_of(node: Mapping[str, Any]) -> str | None:
    """What is wrong with a node (``NotReady``, ``Unreachable``, ``GPUUnhealthy``), or None."""
    status = node.get("status") or {}
    for found in status.get("conditions") or ():
        kind, value = found.get("type"), found.get("status")
        if kind == "Ready" and value != "True":
            return "NotReady" if value == "False" else "Unreachable"
        if kind == GPU_CONDITION and value == "True":
            return "GPUUnhealthy"
    for taint in (node.get("spec") or {}).get("taints") or ():
        said = _TAINTS.get(str(taint.get("key")))
        if said is not None:
            return said
    return None


def without_faulty(objects: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """``objects`` with each faulty node marked unschedulable, so that a plan leaves it
    out as it leaves out a cordoned one."""
    return [
        {**o, "spec": {**(o.get("spec") or {}), "unschedulable": True}}
        if o.get("kind") == "Node" and fault_of(o) is not None
        else o
        for o in objects
    ]
