"""Faults, live: pods of placed gangs on a faulty node are evicted, and their replacements
join the rest of the gang in its domain.

A node is faulty (:func:`fault_of`) when its ``Ready`` condition is not ``True``, when it
carries the ``node.kubernetes.io/unreachable`` or ``node.kubernetes.io/not-ready`` taint,
or when a GPU health check marked it: the taint ``wlmap.dev/gpu-unhealthy`` (any effect)
or a ``GPUUnhealthy`` condition that is ``True``. The controller watches nodes; when one
turns faulty, the GPU pods bound to it that belong to opted-in workloads are evicted
through the Eviction API, so disruption budgets are honoured: a refused eviction is
reported (an Event and the workload's condition) and tried again with backoff while the
node stays faulty. The workload's controller (the Job or StatefulSet controller) makes the
replacements, the webhook gates them, and :func:`._refill.refill` places them where the
minimal-movement rule of the fault simulation puts them (:mod:`._fault_plan`): inside the
gang's domain, narrowed to its healthy nodes, without moving a healthy pod.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

import kopf

from wlmap.errors import ClusterError
from wlmap.operator.core.owners import complete_chain
from wlmap.operator.core.reports import log_name
from wlmap.operator.core.work import is_mapped, retrying
from wlmap.operator.placing.gating import opted_in
from wlmap.operator.placing.node_faults import fault_of
from wlmap.operator.placing.placement_condition import report
from wlmap.operator.placing.state import PlacingState
from wlmap.sources.cluster import ApiError
from wlmap.sources.cluster.owners import OwnerLookup

__all__ = [
    "evict_gangs",
    "register_node_watch",
    "say",
]

log = logging.getLogger("wlmap.operator")
RETRY_FIRST_SECONDS = 2.0
RETRY_LAST_SECONDS = 30.0
CONFLICT_TRIES = 5


def register_node_watch(registry: kopf.OperatorRegistry, state: PlacingState) -> None:
    """Watch nodes; evict the placed pods of one that turns faulty. A follower keeps the
    faulty nodes it saw, and acts on them when it takes the lease over: a node that failed
    while no replica wrote sends no further event."""
    faulty: dict[str, str] = {}  # node name: what is wrong, while it lasts
    unacted: dict[str, str] = {}  # the same, seen while this replica did not write

    def concerned(body: kopf.Body, **_: Any) -> bool:  # quiet for the healthy nodes
        name = body.get("metadata", {}).get("name")
        return fault_of(body) is not None or name in faulty or name in unacted

    def act(name: str, reason: str) -> None:
        faulty[name] = reason
        log.warning("node %s is faulty (%s): evicting the placed pods on it", name, reason)
        state.spawn(_retried(state, lambda: _evict_node(state, faulty, name, reason)))

    @kopf.on.event("", "v1", "nodes", id="placement-faults", when=concerned, registry=registry)
    async def on_node(event: Mapping[str, Any], **_: Any) -> None:
        node = event.get("object") or {}
        name = str((node.get("metadata") or {}).get("name"))
        reason = None if event.get("type") == "DELETED" else fault_of(node)
        if reason is None:
            faulty.pop(name, None)
            unacted.pop(name, None)
        elif not state.writes:
            unacted[name] = reason
        elif name not in faulty:
            act(name, reason)

    async def on_takeover() -> None:
        while unacted:
            name, reason = unacted.popitem()
            if name not in faulty:
                act(name, reason)

    state.takeover.append(on_takeover)


async def _retried(state: PlacingState, step: Callable[[], Awaitable[None]]) -> None:
    """Run a step with the operator's retries (the server's failures, with backoff)."""
    await retrying(state, step)


async def _evict_node(
    state: PlacingState, faulty: Mapping[str, str], node: str, reason: str
) -> None:
    """Evict the GPU pods of opted-in workloads bound to ``node``, per workload."""
    from wlmap.placement.plan import pod_gpus  # noqa: PLC0415 - numpy, with placement on

    assert state.cluster is not None
    found = await state.cluster.request(
        "GET", "/api/v1/pods", params={"fieldSelector": f"spec.nodeName={node}"}
    )
    hit: list[dict[str, Any]] = []
    for item in found.get("items") or ():
        pod = {"apiVersion": "v1", "kind": "Pod", **item}
        meta = pod.get("metadata") or {}
        if meta.get("deletionTimestamp") or (pod.get("status") or {}).get("phase") in (
            "Succeeded",
            "Failed",
        ):
            continue
        if not meta.get("ownerReferences") or not state.serves_namespace(meta.get("namespace")):
            continue
        if not pod_gpus(pod):
            continue
        hit.append(pod)
    fault = f"node {node} is {reason}"
    await evict_gangs(state, hit, fault, "NodeFault", lambda: node in faulty)


async def evict_gangs(
    state: PlacingState,
    pods: list[dict[str, Any]],
    fault: str,
    reason: str,
    lasting: Callable[[], bool],
) -> None:
    """Evict the ``pods`` one fault hit, per opted-in workload they belong to (pods of
    other workloads are left alone)."""
    gangs: dict[str, tuple[dict[str, Any], list[dict[str, Any]]]] = {}
    for pod in pods:
        workload = await _workload_of_pod(state, pod)
        if workload is None or not state.serves(workload) or not opted_in(state, workload):
            continue
        uid = str((workload.get("metadata") or {}).get("uid"))
        gangs.setdefault(uid, (workload, []))[1].append(pod)
    for workload, hit in gangs.values():
        state.spawn(_evict_pods(state, fault, reason, lasting, workload, hit))


async def _evict_pods(
    state: PlacingState,
    fault: str,
    said: str,
    lasting: Callable[[], bool],
    workload: Mapping[str, Any],
    pods: Sequence[Mapping[str, Any]],
) -> None:
    """Evict a workload's ``pods`` hit by ``fault`` (in words: ``node n1 is NotReady``),
    reported with the reason ``said``; retry the refused ones with backoff while
    ``lasting()`` says the fault lasts."""
    delay = RETRY_FIRST_SECONDS
    pending = list(pods)
    while pending and lasting():
        evicted, refused = [], []
        for pod in pending:
            try:
                await _evict(state, pod)
                evicted.append(_name(pod))
            except ClusterError as exc:  # an ApiError, or no answer: tried again
                code = exc.code if isinstance(exc, ApiError) else None
                if code == 404:  # gone meanwhile
                    continue
                if code in (400, 403, 422):  # not a budget (429) or the server's trouble
                    log.error("eviction of %s refused: %s", _name(pod), exc)
                    await say(state, workload, False, "EvictionFailed", f"{_name(pod)}: {exc}")
                    continue
                refused.append((pod, str(exc)))
        if evicted:
            await say(
                state,
                workload,
                False,
                said,
                f"{fault}: evicted {', '.join(evicted)}; "
                "their replacements are placed in the gang's domain",
            )
        if refused:
            names = ", ".join(_name(p) for p, _ in refused)
            await say(
                state,
                workload,
                False,
                "EvictionRefused",
                f"{fault}: eviction of {names} refused ({refused[0][1]}); "
                f"tried again every {RETRY_LAST_SECONDS:g} s at most while the fault lasts",
            )
            await asyncio.sleep(delay)
            delay = min(delay * 2, RETRY_LAST_SECONDS)
        pending = [p for p, _ in refused]
    log.info(
        "%s: %d pod(s) evicted",
        fault,
        len(pods) - len(pending),
        extra={"workload": log_name(workload)},
    )


async def say(
    state: PlacingState, workload: Mapping[str, Any], holds: bool, reason: str, message: str
) -> None:
    """Set the workload's condition and post the Event (read again after a conflict: the workload's controller writes its status as
    its pods go); a failure to say it is logged, and does not stop the evictions."""
    for attempt in range(1, CONFLICT_TRIES + 1):
        try:
            await report(state, workload, holds, reason, message)
            return
        except ApiError as exc:
            if exc.code != 409 or attempt == CONFLICT_TRIES:
                log.warning("placement %s: %s (not recorded: %s)", reason, message, exc)
                return
        except ClusterError as exc:
            log.warning("placement %s: %s (not recorded: %s)", reason, message, exc)
            return


async def _evict(state: PlacingState, pod: Mapping[str, Any]) -> None:
    """One eviction through the API (``policy/v1`` Eviction), which checks the budgets."""
    assert state.cluster is not None
    meta = pod.get("metadata") or {}
    namespace, name = meta.get("namespace"), meta.get("name")
    body = {
        "apiVersion": "policy/v1",
        "kind": "Eviction",
        "metadata": {"name": name, "namespace": namespace},
    }
    path = f"/api/v1/namespaces/{namespace}/pods/{name}/eviction"
    await state.cluster.request("POST", path, body=body)


async def _workload_of_pod(state: PlacingState, pod: Mapping[str, Any]) -> dict[str, Any] | None:
    """The top-level mapped workload owning a pod, as the handlers find it; read from the
    cluster when the cache has not seen an owner yet (at start, a fault found before the
    workloads' watches list them)."""
    assert state.cluster is not None and state.discovery is not None
    chain: list[dict[str, Any]] = []
    if state.cache is not None:
        chain = await complete_chain(state.cache, pod)
    if not chain:
        await OwnerLookup(state.cluster, state.discovery).complete(chain, [pod])
    mapped = [o for o in chain if is_mapped(state, o)]
    return mapped[-1] if mapped else None


def _name(pod: Mapping[str, Any]) -> str:
    meta = pod.get("metadata") or {}
    return f"{meta.get('namespace')}/{meta.get('name')}"
