"""The wlmap operator: validates definition objects and keeps gang-scheduling objects
(KAI PodGroups, Volcano PodGroups, upstream Workload/PodGroups) for every mapped workload.
Run it with ``python -m wlmap.operator`` or ``wlmap-operator``."""

from wlmap.operator.core.settings import SYNC_TARGETS, Settings

__all__ = ["SYNC_TARGETS", "Settings"]
