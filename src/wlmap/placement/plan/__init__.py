"""Planning a workload on a real cluster: where its gangs would go now, or why not.

- :mod:`.occupancy`: nodes and pods (a dump or a live read) as a topology with the GPUs
  running pods hold;
- :mod:`.gang_plan`: each gang placed in turn with a gang policy;
- :mod:`.shortfall`: the binding constraint of a gang that does not fit, and whose
  finishing would make room;
- :mod:`.render`: the decision as node affinity, Kueue and KAI annotations, and the
  Workload API's topology constraint;
- :mod:`.ranking`: several clusters ranked for one workload.
"""

from __future__ import annotations

from wlmap.placement.plan.gang_plan import GangPlan, common_level, plan_gangs
from wlmap.placement.plan.occupancy import HeldGpus, Occupancy, PendingPod, pod_gpus, read_occupancy
from wlmap.placement.plan.ranking import ClusterPlan, rank_clusters
from wlmap.placement.plan.render import (
    affinity_patches,
    kai_objects,
    kueue_patches,
    node_selector_term,
    workload_api_objects,
)
from wlmap.placement.plan.room import CLUSTER, domain_room, level_key, level_word
from wlmap.placement.plan.shortfall import Relief, Shortfall, shortfall

__all__ = [
    "CLUSTER",
    "ClusterPlan",
    "GangPlan",
    "HeldGpus",
    "Occupancy",
    "PendingPod",
    "Relief",
    "Shortfall",
    "affinity_patches",
    "common_level",
    "domain_room",
    "kai_objects",
    "kueue_patches",
    "level_key",
    "level_word",
    "node_selector_term",
    "plan_gangs",
    "pod_gpus",
    "rank_clusters",
    "read_occupancy",
    "shortfall",
    "workload_api_objects",
]
