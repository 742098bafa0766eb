"""What every gang-scheduling target needs from a view: names, owner references, groups."""

from __future__ import annotations

import dataclasses
import hashlib
import re
from collections import Counter
from collections.abc import Mapping
from typing import Any

from wlmap.workload import ComponentView, GangGroup, WorkloadView
from wlmap.workload.gangs import scheduled_gangs
from wlmap.workload.resources import PodResources

_DNS = re.compile(r"[^a-z0-9-]+")
MAX_LABEL = 63
HASH_LENGTH = 10


def dns_label(*parts: str) -> str:
    """A DNS-1123 label built from parts (lower case, dashes, at most 63 characters)."""
    text = _DNS.sub("-", "-".join(p for p in parts if p).lower()).strip("-")
    return text[:63].rstrip("-") or "group"


def group_name(view: WorkloadView, obj: Mapping[str, Any], *key: str) -> str:
    """The name of a generated object: ``<kind>-<name>[-<key>]-<hash>``, a DNS label.

    The hash (of the workload's uid, or of its namespace and name when it has none yet,
    and of the key) makes the name unique per workload and gang: a JobSet and a PyTorchJob
    both named ``train`` get different groups, and a name cut to fit 63 characters stays
    unique. Readable parts are cut first; the hash always stays whole.
    """
    meta = obj.get("metadata") or {}
    identity = meta.get("uid") or f"{view.namespace}/{view.kind}/{view.name}"
    digest = hashlib.sha256("\0".join((str(identity), *key)).encode()).hexdigest()
    tail = digest[:HASH_LENGTH]
    head = dns_label((view.kind or "workload").lower(), view.name or "", *key)
    return f"{head[: MAX_LABEL - HASH_LENGTH - 1].rstrip('-')}-{tail}"


def object_meta(view: WorkloadView, obj: Mapping[str, Any], name: str) -> dict[str, Any]:
    """Metadata of a generated object: namespace, labels, and an owner reference to the
    workload when its uid is known (so the object goes away with it)."""
    labels = {"app.kubernetes.io/managed-by": "wlmap"}
    if view.name and len(view.name) <= MAX_LABEL:  # a longer label value is refused
        labels["wlmap.dev/workload"] = view.name
    metadata: dict[str, Any] = {"name": name, "labels": labels}
    if view.namespace:
        metadata["namespace"] = view.namespace
    uid = (obj.get("metadata") or {}).get("uid")
    if uid and view.api_version and view.kind and view.name:
        metadata["ownerReferences"] = [
            {
                "apiVersion": view.api_version,
                "kind": view.kind,
                "name": view.name,
                "uid": uid,
                "controller": True,
                "blockOwnerDeletion": True,
            }
        ]
    return metadata


def gangs(view: WorkloadView) -> list[GangGroup]:
    """The view's gangs, or one gang of every pod the workload asks for when the
    definition says nothing about gangs; none when the workload asks for no pods."""
    if view.gang_groups:
        found = scheduled_gangs(view.gang_groups)
        # Gangs with one key would get one object name: legacy groups met without pods
        # have none (a RayJob's cluster and its submitter); their names tell them apart.
        keys = Counter(g.key for g in found)
        return [
            dataclasses.replace(g, key=(g.name, *(g.key or ()))) if keys[g.key] > 1 else g
            for g in found
        ]
    members = tuple(dict.fromkeys(c.name for c in pod_components(view)))
    minimum = sum(c.min_pods for c in pod_components(view))
    if not minimum:
        return []
    return [
        GangGroup(
            name=view.name or "workload", min_member=minimum, members=members, source="default"
        )
    ]


def pod_components(view: WorkloadView) -> list[ComponentView]:
    """Component instances that ask for pods."""
    return [c for c in view.components if c.template is not None and c.pods > 0]


def gang_components(view: WorkloadView, gang: GangGroup) -> list[ComponentView]:
    """The pod-asking component instances a gang holds: its members', or, for one start
    stage of a workload, only the instances of that stage."""
    return [
        c
        for c in pod_components(view)
        if c.name in gang.members and (gang.holds is None or (c.name, c.instance) in gang.holds)
    ]


def topology(gang: GangGroup) -> dict[str, Any] | None:
    """A gang's topology as the three fields schedulers share, or None."""
    if gang.topology is None:
        return None
    return gang.topology.model_dump(by_alias=True, exclude_none=True)


def min_resources(view: WorkloadView, gang: GangGroup) -> dict[str, str]:
    """What the gang's minimum set of pods requests (its member components' ``min_pods``
    each), as quantities; resources none of them requests are left out."""
    minimum = PodResources()
    for component in gang_components(view, gang):
        if component.per_pod is not None:
            minimum = minimum.add(component.per_pod.scaled(component.min_pods))
    requests = minimum.to_dict()["requests"].items()
    return {k: str(v) if isinstance(v, int) else f"{v:g}" for k, v in requests if v}
