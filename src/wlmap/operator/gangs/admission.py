"""The Workload API's pod link, set by admission: a pod of a served workload is created
naming the PodGroup of its gang (its start stage's) in ``spec.schedulingGroup``.

The field is immutable after creation, so gang sync cannot patch it as it patches the
other schedulers' link annotations and labels; the operator's webhook server
(:mod:`wlmap.operator.core.webhook`) sets it while the pod is created. Which group a pod
joins is decided as gang sync decides it for the other targets: the workload is read from
the operator's cache with the pod being created added below its owner, interpreted (in
its definition's lane, as a reconciliation is), and the pod takes the group
``desired_state`` gives its name. The PodGroup itself may not exist yet: kube-scheduler
holds the pod until it does.

The owner chain is read from the cache; a pod created before its owner's watch event
arrives (a Job's first pod) waits for it a little. The webhook fails open: a pod whose
workload is unknown, unserved or refused a gang, or that the operator could not answer
for in time, is created as it came, without a group.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Mapping
from typing import Any

import kopf

from wlmap.definitions.trust import is_trusted
from wlmap.operator.core.evaluations import Evaluations
from wlmap.operator.core.owners import complete_chain
from wlmap.operator.core.shared import Shared
from wlmap.operator.core.webhook import POD_GROUP_HANDLER
from wlmap.operator.gangs.groups import Desired
from wlmap.operator.gangs.reconcile import interpreted
from wlmap.schedulers import PROFILES
from wlmap.sources.cluster.snapshot import ORIGIN
from wlmap.sources.manifests import Manifest
from wlmap.sources.workloads import WorkloadReader

__all__ = ["HANDLER_ID", "pod_group", "register_pod_groups"]

log = logging.getLogger("wlmap.operator")
HANDLER_ID = POD_GROUP_HANDLER  # kopf serves the handler at /pod-group
# How long a pod's creation may wait for its owner chain to reach the cache: the owner was
# created a moment before, and its watch event is usually there within milliseconds.
CHAIN_WAIT_SECONDS = 2.0
CHAIN_POLL_SECONDS = 0.05
# The admission request's own limit is the webhook's timeout (5 s in the bundle); an
# answer later than this is dropped and the pod created without a group.
ANSWER_SECONDS = 4.0
# A pod being created has no name yet when its owner asked for a generated one; the
# mapping is by name, and no real pod is named with a colon.
PENDING_NAME = ":admission"


def field_path(target: str) -> tuple[str, ...] | None:
    """The pod field a target's group link lives in (``spec`` first), or None when the
    target links pods through metadata gang sync writes."""
    link = PROFILES[target].link if target in PROFILES else None
    if link is None or link.writable:
        return None
    return tuple(link.name.split("."))


async def pod_group(shared: Shared, evaluations: Evaluations, pod: Mapping[str, Any]) -> str | None:
    """The PodGroup a pod being created joins, or None when it joins none (or that is not
    known: no cache, an owner not seen in time, a workload not served or refused a gang)."""
    cache, discovery = shared.cache, shared.discovery
    meta = pod.get("metadata") or {}
    if cache is None or discovery is None or not meta.get("ownerReferences"):
        return None
    if not shared.serves_namespace(meta.get("namespace")):
        return None  # asked first: the cache keeps no owner there, it would be waited for
    pending = {"apiVersion": "v1", "kind": "Pod", **pod}
    pending["metadata"] = {**meta, "name": meta.get("name") or PENDING_NAME}
    chain = await _chain(shared, pending)
    registry = shared.store.registry
    mapped = [
        o for o in chain if registry.find(str(o.get("apiVersion")), str(o.get("kind"))) is not None
    ]
    if not mapped or not shared.serves(mapped[-1]):
        return None
    top = mapped[-1]
    entry = registry.find(str(top.get("apiVersion")), str(top.get("kind")))
    assert entry is not None
    snapshot = await cache.read(top, registry, discovery)
    snapshot.manifests.append(Manifest(pending, ORIGIN))
    reader = WorkloadReader(registry, snapshot.manifests, pods_listed=snapshot.pods_listed)
    current = snapshot.manifests[0].obj
    settings = shared.settings
    generation = shared.store.generation_in_use(entry.origin)
    done = await evaluations.run(
        entry.origin,
        entry.definition if generation is None else generation,
        is_trusted(entry.definition),
        lambda: interpreted(settings, reader, entry, current),
        lambda result: not isinstance(result[1], Desired) and result[1].evaluation_failed,
    )
    if done.value is None or not isinstance(desired := done.value[1], Desired):
        return None  # quarantined, or no gang may be written: the pod joins none
    return desired.pod_groups.get(str(pending["metadata"]["name"]))


async def _chain(shared: Shared, pod: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The pod's owner chain, waiting up to ``CHAIN_WAIT_SECONDS`` for owners not seen yet."""
    assert shared.cache is not None
    deadline = time.monotonic() + CHAIN_WAIT_SECONDS
    while not (chain := await complete_chain(shared.cache, pod)):
        if time.monotonic() >= deadline:
            return []
        await asyncio.sleep(CHAIN_POLL_SECONDS)
    return chain


def register_pod_groups(
    registry: kopf.OperatorRegistry, shared: Shared, evaluations: Evaluations
) -> None:
    """The mutating webhook that sets a pod's group field at creation, for a target that
    links pods through one (the Workload API); nothing for the others."""
    path = field_path(shared.settings.target)
    if path is None:
        return
    *parents, leaf = path

    @kopf.on.mutate(
        "",
        "v1",
        "pods",
        id=HANDLER_ID,
        operations=["CREATE"],
        ignore_failures=True,
        registry=registry,
    )
    async def link(body: kopf.Body, patch: kopf.Patch, **_: Any) -> None:
        pod = dict(body)
        if _has(pod, path):
            return  # set by its owner: the field is the owner's to say
        try:
            group = await asyncio.wait_for(pod_group(shared, evaluations, pod), ANSWER_SECONDS)
        except TimeoutError:
            log.warning("pod group: no answer in %.0f s; the pod joins no group", ANSWER_SECONDS)
            return
        if group is None:
            return
        # kopf's patch is a merge patch (turned into JSON patch operations by a diff),
        # which the placement gate's handler may have written into too
        where: Any = patch
        for part in parents:
            where = where.setdefault(part, {})
        where[leaf] = group


def _has(obj: Mapping[str, Any], path: tuple[str, ...]) -> bool:
    here: Any = obj
    for part in path:
        if not isinstance(here, Mapping) or part not in here:
            return False
        here = here[part]
    return here is not None
