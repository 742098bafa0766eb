"""GPU placement: a cluster model, placement policies and a trace-driven simulator.

The names below are imported on first use (PEP 562), so ``import wlmap.placement`` does not
load numpy until a name that needs it is used.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from wlmap.placement.arrivals import tune_to_capacity
    from wlmap.placement.model import Node, Placement, Pod
    from wlmap.placement.policy import POLICIES, Policy, make_policy
    from wlmap.placement.readers.openb import read_openb_nodes, read_openb_pods
    from wlmap.placement.simulator import SimulationResult, simulate
    from wlmap.placement.state import ClusterState

_WHERE = {
    "Node": "wlmap.placement.model",
    "Pod": "wlmap.placement.model",
    "Placement": "wlmap.placement.model",
    "ClusterState": "wlmap.placement.state",
    "POLICIES": "wlmap.placement.policy",
    "Policy": "wlmap.placement.policy",
    "make_policy": "wlmap.placement.policy",
    "tune_to_capacity": "wlmap.placement.arrivals",
    "read_openb_nodes": "wlmap.placement.readers.openb",
    "read_openb_pods": "wlmap.placement.readers.openb",
    "SimulationResult": "wlmap.placement.simulator",
    "simulate": "wlmap.placement.simulator",
}


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'wlmap.placement' has no attribute {name!r}")
    return getattr(import_module(module), name)


__all__ = [
    "POLICIES",
    "ClusterState",
    "Node",
    "Placement",
    "Pod",
    "Policy",
    "SimulationResult",
    "make_policy",
    "read_openb_nodes",
    "read_openb_pods",
    "simulate",
    "tune_to_capacity",
]
