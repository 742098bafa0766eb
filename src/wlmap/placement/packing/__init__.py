"""The packing engine: pods placed one at a time on nodes with shared GPUs.

- :mod:`.pods`: a pod's request and where it went;
- :mod:`.cluster_state`: what each node and GPU has left, updated per placement;
- :mod:`.pod_policies` and :mod:`.policies`: the FGD paper's policies and wlmap's, by name,
  and the FGD fragmentation measure (``fragmentation`` against a ``target_workload``);
- :mod:`.pod_simulator`: the trace-driven simulator, :mod:`.arrivals` its arrival tuning,
  :mod:`.metrics` its measurements and :mod:`.plot` their curves;
- :mod:`.bound`: the offline LP bound on how much a policy could place;
- :mod:`.openb`: the openb trace (Alibaba's GPU-sharing cluster) as nodes and pods.

Needs the ``placement`` extra.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from wlmap.placement._front_door import attribute

if TYPE_CHECKING:
    from wlmap.placement.packing.arrivals import arrived_at_capacity, tune_to_capacity
    from wlmap.placement.packing.bound import offline_bound
    from wlmap.placement.packing.cluster_state import ClusterState
    from wlmap.placement.packing.metrics import MAX_ARRIVED_PERCENT
    from wlmap.placement.packing.openb import read_openb_nodes, read_openb_pods
    from wlmap.placement.packing.plot import curves, plot_allocation
    from wlmap.placement.packing.pod_policies import POLICIES, Policy, make_policy
    from wlmap.placement.packing.pod_simulator import SimulationResult, place_each, simulate
    from wlmap.placement.packing.pods import (
        MILLI,
        POD_CLASSES,
        Placement,
        Pod,
        PodClass,
        request_problem,
    )
    from wlmap.placement.packing.policies._common import tie_rank
    from wlmap.placement.packing.policies._share_plan import share_plan
    from wlmap.placement.packing.policies.fragmentation import (
        TargetWorkload,
        fragmentation,
        target_workload,
    )

_WHERE = {
    "arrived_at_capacity": "wlmap.placement.packing.arrivals",
    "ClusterState": "wlmap.placement.packing.cluster_state",
    "fragmentation": "wlmap.placement.packing.policies.fragmentation",
    "TargetWorkload": "wlmap.placement.packing.policies.fragmentation",
    "target_workload": "wlmap.placement.packing.policies.fragmentation",
    "curves": "wlmap.placement.packing.plot",
    "make_policy": "wlmap.placement.packing.pod_policies",
    "MAX_ARRIVED_PERCENT": "wlmap.placement.packing.metrics",
    "MILLI": "wlmap.placement.packing.pods",
    "offline_bound": "wlmap.placement.packing.bound",
    "place_each": "wlmap.placement.packing.pod_simulator",
    "Placement": "wlmap.placement.packing.pods",
    "plot_allocation": "wlmap.placement.packing.plot",
    "Pod": "wlmap.placement.packing.pods",
    "POD_CLASSES": "wlmap.placement.packing.pods",
    "PodClass": "wlmap.placement.packing.pods",
    "POLICIES": "wlmap.placement.packing.pod_policies",
    "Policy": "wlmap.placement.packing.pod_policies",
    "read_openb_nodes": "wlmap.placement.packing.openb",
    "read_openb_pods": "wlmap.placement.packing.openb",
    "request_problem": "wlmap.placement.packing.pods",
    "share_plan": "wlmap.placement.packing.policies._share_plan",
    "simulate": "wlmap.placement.packing.pod_simulator",
    "SimulationResult": "wlmap.placement.packing.pod_simulator",
    "tie_rank": "wlmap.placement.packing.policies._common",
    "tune_to_capacity": "wlmap.placement.packing.arrivals",
}


def __getattr__(name: str) -> Any:
    return attribute(__name__, _WHERE, name)


__all__ = [
    "MAX_ARRIVED_PERCENT",
    "MILLI",
    "POD_CLASSES",
    "POLICIES",
    "ClusterState",
    "Placement",
    "Pod",
    "PodClass",
    "Policy",
    "SimulationResult",
    "TargetWorkload",
    "arrived_at_capacity",
    "curves",
    "fragmentation",
    "make_policy",
    "offline_bound",
    "place_each",
    "plot_allocation",
    "read_openb_nodes",
    "read_openb_pods",
    "request_problem",
    "share_plan",
    "simulate",
    "target_workload",
    "tie_rank",
    "tune_to_capacity",
]
