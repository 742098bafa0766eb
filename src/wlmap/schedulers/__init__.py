"""Gang-scheduling objects for any mapped workload: KAI, Volcano, the Workload API, Kueue."""

from wlmap.schedulers.kai import kai_podgroups
from wlmap.schedulers.kueue import kueue_podsets
from wlmap.schedulers.volcano import volcano_podgroups
from wlmap.schedulers.workload_api import workload_api_objects

TARGETS = {
    "kai": kai_podgroups,
    "volcano": volcano_podgroups,
    "workload-api": workload_api_objects,
    "kueue": kueue_podsets,
}

__all__ = ["TARGETS", "kai_podgroups", "kueue_podsets", "volcano_podgroups", "workload_api_objects"]
