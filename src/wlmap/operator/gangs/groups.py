"""What the cluster should hold for one workload: its gang objects for the configured
scheduler, labelled with the workload's uid, and which group each of its pods joins."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from wlmap.operator.core.settings import WORKLOAD_UID_LABEL, Settings
from wlmap.schedulers import TARGETS
from wlmap.schedulers._common import gangs
from wlmap.workload import WorkloadView


@dataclass(frozen=True)
class Desired:
    """Gang objects to apply, and the group name each pod should carry."""

    objects: list[dict[str, Any]]
    pod_groups: dict[str, str]


def desired_state(settings: Settings, view: WorkloadView, obj: Mapping[str, Any]) -> Desired:
    """The gang objects and pod links for one workload under one target."""
    uid = str((obj.get("metadata") or {}).get("uid") or "")
    objects = TARGETS[settings.target](view, obj)
    for item in objects:
        item["metadata"].setdefault("labels", {})[WORKLOAD_UID_LABEL] = uid
    groups = [o for o in objects if o.get("kind") == "PodGroup"]
    return Desired(objects, _pod_groups(view, groups))


def _pod_groups(view: WorkloadView, groups: Sequence[Mapping[str, Any]]) -> dict[str, str]:
    """Pod name -> group name. A gang that names its pods takes those; a gang over
    components takes every pod placed in one of its member components."""
    placed = view.pods or ()
    links: dict[str, str] = {}
    for gang, group in zip(gangs(view), groups, strict=False):
        name = str(group["metadata"]["name"])
        if gang.pods is not None:
            members = set(gang.pods)
        elif gang.holds is not None:  # one start stage: only its instances' pods
            held = set(gang.holds)
            members = {p.name for p in placed if (p.component, p.instance) in held}
        else:
            components = set(gang.members) | {m for s in gang.sub_groups for m in s.members}
            members = {p.name for p in placed if p.component in components}
        for pod in members:
            links.setdefault(pod, name)
    return links
