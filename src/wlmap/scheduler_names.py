"""The annotation and label names KAI and Kueue define, declared once.

Two sides read them: the scheduler profiles (:mod:`wlmap.schedulers.kai`,
:mod:`wlmap.schedulers.kueue`), which list them with the rest of what each scheduler is,
and placement, which reads a workload's topology intent from them and writes a plan in
them. Placement may not import the profiles (they sit above it), so the names live here,
below both, and the profiles re-export them. A scheduler whose names placement never
reads (Volcano, the Workload API, coscheduling) declares them in its profile alone.
"""

from __future__ import annotations

__all__ = [
    "KAI",
    "KAI_POD_GROUP",
    "KAI_PREFERRED",
    "KAI_QUEUE",
    "KAI_REQUIRED",
    "KAI_SEGMENT_LEVEL",
    "KAI_SEGMENT_SIZE",
    "KAI_TOPOLOGY",
    "KAI_TOPOLOGY_API",
    "KUEUE",
    "KUEUE_GROUP_NAME",
    "KUEUE_PREFERRED",
    "KUEUE_REQUIRED",
    "KUEUE_SLICE_LEVEL",
    "KUEUE_SLICE_SIZE",
    "KUEUE_UNCONSTRAINED",
]

KUEUE = "kueue.x-k8s.io/"
# on a pod template: the topology level its pods must (or should) share
KUEUE_REQUIRED = KUEUE + "podset-required-topology"
KUEUE_PREFERRED = KUEUE + "podset-preferred-topology"
KUEUE_UNCONSTRAINED = KUEUE + "podset-unconstrained-topology"
# on a pod template: slices of a pod set, each within one domain of the level
KUEUE_SLICE_LEVEL = KUEUE + "podset-slice-required-topology"
KUEUE_SLICE_SIZE = KUEUE + "podset-slice-size"
# on pod templates placed together: the same value on each
KUEUE_GROUP_NAME = KUEUE + "podset-group-name"

KAI = "kai.scheduler/"
# on the workload: the Topology object, and the level its pods must (or should) share
KAI_TOPOLOGY = KAI + "topology"
KAI_REQUIRED = KAI + "topology-required-placement"
KAI_PREFERRED = KAI + "topology-preferred-placement"
# on a pod template: segments of a subgroup (KAI's segmented-subgroups design)
KAI_SEGMENT_SIZE = KAI + "segment-size"
KAI_SEGMENT_LEVEL = KAI + "segment-topology-required-placement"
# label on the workload: the queue its PodGroup joins
KAI_QUEUE = KAI + "queue"
# annotation on each pod: the name of its PodGroup
KAI_POD_GROUP = "pod-group-name"
# the API of KAI's Topology object (levels as node labels, coarsest first)
KAI_TOPOLOGY_API = "kai.scheduler/v1alpha1"
