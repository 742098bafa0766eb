"""Gang-scheduling objects for any mapped workload, one profile per scheduler.

:data:`PROFILES` is the registry: each :class:`Profile` says what one scheduler is to
wlmap (gang object kinds, pod link, annotations and labels, builder, plan renderer). The
CLI's ``podgroups --target`` and ``plan --render`` choices, the operator's targets, its
gang cache and its RBAC all loop over it; a new scheduler is one module and one line here.
"""

from collections.abc import Mapping

from wlmap.schedulers import coscheduling, kai, kueue, volcano, workload_api
from wlmap.schedulers._affinity import AFFINITY
from wlmap.schedulers._profile import (
    Builder,
    GangKind,
    PlanInput,
    PlanRender,
    PodLink,
    Profile,
)
from wlmap.schedulers._refusal import MAX_GANG_MEMBERS, GangRefusal, gang_refusal
from wlmap.schedulers.kai import kai_podgroups
from wlmap.schedulers.kueue import kueue_podsets
from wlmap.schedulers.volcano import volcano_podgroups
from wlmap.schedulers.workload_api import workload_api_objects

# The order is that of the choices shown: plan renders (after affinity) and kept targets.
PROFILES: Mapping[str, Profile] = {
    p.name: p
    for p in (
        kueue.PROFILE,
        kai.PROFILE,
        volcano.PROFILE,
        workload_api.PROFILE,
        coscheduling.PROFILE,
    )
}

TARGETS: Mapping[str, Builder] = {name: p.build for name, p in PROFILES.items()}
"""Each target's builder by name (``wlmap podgroups --target``)."""

KEPT_TARGETS = tuple(name for name, p in PROFILES.items() if p.kept)
"""The targets whose objects the operator writes and keeps."""

PLAN_RENDERS: Mapping[str, PlanRender] = {
    r.name: r for r in (AFFINITY, *(p.render for p in PROFILES.values() if p.render))
}
"""``wlmap plan --render`` forms by name."""

__all__ = [
    "KEPT_TARGETS",
    "MAX_GANG_MEMBERS",
    "PLAN_RENDERS",
    "PROFILES",
    "TARGETS",
    "Builder",
    "GangKind",
    "GangRefusal",
    "PlanInput",
    "PlanRender",
    "PodLink",
    "Profile",
    "gang_refusal",
    "kai_podgroups",
    "kueue_podsets",
    "volcano_podgroups",
    "workload_api_objects",
]
