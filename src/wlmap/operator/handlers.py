"""The operator's kopf handlers, registered for the kinds the definitions cover.

Every handler is level-based (``on.event``): it reads the current state and applies the
desired state, so repeated, reordered or replayed events (after a restart or a dropped
watch) converge to the same result, and nothing is written into users' objects but the
pod link annotations. Errors are sorted in one place: the server's failures are retried
with backoff; a definition that cannot describe an object is logged and left.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import kopf

from wlmap.definitions.validation import validate_definition
from wlmap.errors import ClusterError, DefinitionError, WlmapError, WorkloadNotFoundError
from wlmap.operator.conditions import definition_status
from wlmap.operator.login import login
from wlmap.operator.queue import WorkQueue
from wlmap.operator.reconcile import Outcome, forget, reconcile
from wlmap.operator.reports import Reports, post_event, set_degraded
from wlmap.operator.scope import GANG_LABEL
from wlmap.operator.settings import Settings
from wlmap.operator.store import DefinitionStore
from wlmap.sources.cluster import (
    ApiError,
    Cluster,
    Discovery,
    discover,
    list_objects,
    origin_of,
    parse_stored,
)
from wlmap.sources.cluster.connection import MERGE_PATCH
from wlmap.sources.cluster.definitions import DEFINITION_TYPES
from wlmap.sources.cluster.owners import OwnerLookup
from wlmap.sources.inventory import controller_reference

log = logging.getLogger("wlmap.operator")
RETRIES = 6
RETRY_LATER_SECONDS = 30.0
NOT_TOP_LEVEL_KINDS = frozenset({("", "Pod"), ("apps", "ReplicaSet")})


@dataclass
class State:
    """What the handlers share: the connection, discovery, definitions and counters."""

    settings: Settings
    store: DefinitionStore = field(default_factory=DefinitionStore)
    cluster: Cluster | None = None
    discovery: Discovery | None = None
    queue: WorkQueue = field(default_factory=WorkQueue)
    later: set[asyncio.Task[None]] = field(default_factory=set)
    reports: Reports = field(default_factory=Reports)
    kinds: set[tuple[str, str]] = field(default_factory=set)
    namespace_labels: dict[str, dict[str, str]] = field(default_factory=dict)
    reconciled: int = 0
    failures: int = 0

    def serves(self, obj: Mapping[str, Any]) -> bool:
        """Whether a workload is in scope (its namespace's labels as last seen)."""
        namespace = (obj.get("metadata") or {}).get("namespace")
        return self.settings.scope.serves(obj, self.namespace_labels.get(str(namespace)))

    def serves_namespace(self, namespace: str | None) -> bool:
        """Whether a namespace is in scope."""
        labels = self.namespace_labels.get(str(namespace))
        return self.settings.scope.namespace_served(namespace, labels)


def register(registry: kopf.OperatorRegistry, state: State, kinds: set[tuple[str, str]]) -> None:
    """Register every handler: definitions, the workload kinds, and pods."""
    state.kinds = set(kinds)

    @kopf.on.login(registry=registry)
    def on_login(**kwargs: Any) -> kopf.ConnectionInfo | None:
        return login(state.settings, **kwargs)

    @kopf.on.startup(registry=registry)
    async def startup(settings: kopf.OperatorSettings, **_: Any) -> None:
        settings.posting.level = logging.WARNING
        settings.watching.server_timeout = 60
        settings.watching.client_timeout = 90
        settings.watching.connect_timeout = 10
        settings.networking.request_timeout = 30
        state.cluster = await Cluster.connect(state.settings.kubeconfig, state.settings.context)
        state.discovery = await discover(state.cluster)
        namespaces = state.discovery.find("", "Namespace")
        if namespaces is not None:  # before the watches start: their first events need it
            for found in await list_objects(state.cluster, namespaces):
                meta = found.get("metadata") or {}
                state.namespace_labels[str(meta.get("name"))] = dict(meta.get("labels") or {})

    @kopf.on.cleanup(registry=registry)
    async def cleanup(**_: Any) -> None:
        if state.cluster is not None:
            await state.cluster.close()

    @kopf.on.probe(id="reconciled", registry=registry)
    def reconciled(**_: Any) -> int:
        return state.reconciled

    kopf.on.event("", "v1", "namespaces", registry=registry)(_namespace_handler(state))
    for group, kind in DEFINITION_TYPES:
        kopf.on.event(group=group, kind=kind, registry=registry)(_definition_handler(state))
    for group, kind in sorted(kinds):
        kopf.on.event(group=group, kind=kind, registry=registry)(_workload_handler(state))
    if state.settings.pod_link is not None:
        kopf.on.event(
            "",
            "v1",
            "pods",
            annotations={state.settings.pod_link: kopf.ABSENT},
            registry=registry,
        )(_pod_handler(state))


def _definition_handler(state: State) -> Callable[..., Awaitable[None]]:
    async def on_definition(event: Mapping[str, Any], **_: Any) -> None:
        obj = dict(event.get("object") or {})
        origin = origin_of(obj)
        if event.get("type") == "DELETED":
            dropped = state.store.forget(origin)
            log.info("definition removed", extra={"definition": origin})
            if dropped is not None and dropped.root_gvk is not None:
                await _requeue(state, {(dropped.root_gvk.group, dropped.root_gvk.kind)})
            return
        problems = []
        definition = None
        try:
            definition = parse_stored(obj)
            problems = [p for p in validate_definition(definition) if p.severity != "error"]
        except DefinitionError as exc:
            problems = list(exc.problems)
        generation = (obj.get("metadata") or {}).get("generation")
        changed = False
        if definition is not None:
            changed = state.store.accept(origin, definition, generation)
            log.info("definition in use", extra={"definition": origin, "generation": generation})
        else:
            log.warning(
                "definition invalid, the last good version stays in use",
                extra={"definition": origin, "problems": len(problems)},
            )
        crd = None
        if (
            definition is not None
            and definition.root_gvk is not None
            and state.discovery is not None
        ):
            await _refresh_discovery(state)
            assert state.discovery is not None
            crd = (
                state.discovery.find(definition.root_gvk.group, definition.root_gvk.kind)
                is not None
            )
        status = definition_status(obj, problems, crd, state.store.generation_in_use(origin))
        await _retrying(state, lambda: _patch_status(state, obj, status))
        if changed and crd and definition is not None and definition.root_gvk is not None:
            await _requeue(state, {(definition.root_gvk.group, definition.root_gvk.kind)})

    return on_definition


def _namespace_handler(state: State) -> Callable[..., Awaitable[None]]:
    async def on_namespace(event: Mapping[str, Any], **_: Any) -> None:
        meta = (event.get("object") or {}).get("metadata") or {}
        name = str(meta.get("name"))
        before = (
            state.serves_namespace(name),
            state.namespace_labels.get(name, {}).get(GANG_LABEL),
        )
        if event.get("type") == "DELETED":
            state.namespace_labels.pop(name, None)
            return
        state.namespace_labels[name] = dict(meta.get("labels") or {})
        after = (state.serves_namespace(name), state.namespace_labels[name].get(GANG_LABEL))
        if after[0] and after != before:  # opted in (or core kinds opted in): catch up
            await _requeue(state, state.kinds, (name,))

    return on_namespace


def _workload_handler(state: State) -> Callable[..., Awaitable[None]]:
    async def on_workload(event: Mapping[str, Any], **_: Any) -> None:
        obj = dict(event.get("object") or {})
        if _owned_by_mapped(state, obj):
            return  # its owner's gang covers it
        assert state.cluster is not None and state.discovery is not None
        cluster, discovery = state.cluster, state.discovery
        uid = str((obj.get("metadata") or {}).get("uid"))
        terminating = (obj.get("metadata") or {}).get("deletionTimestamp")
        if event.get("type") == "DELETED" or terminating:  # a gang for nothing holds capacity
            if state.serves_namespace((obj.get("metadata") or {}).get("namespace")):
                await _submit(state, uid, lambda: forget(cluster, discovery, state.settings, obj))
            return
        if state.serves(obj):
            await _submit(state, uid, _reconcile_step(state, obj))

    return on_workload


def _pod_handler(state: State) -> Callable[..., Awaitable[None]]:
    async def on_pod(event: Mapping[str, Any], **_: Any) -> None:
        if event.get("type") == "DELETED":
            return
        pod = dict(event.get("object") or {})
        meta = pod.get("metadata") or {}
        if not meta.get("ownerReferences") or not state.serves_namespace(meta.get("namespace")):
            return
        owner = await _top_owner(state, pod)
        if owner is not None and state.serves(owner):
            uid = str((owner.get("metadata") or {}).get("uid"))
            await _submit(state, uid, _reconcile_step(state, owner))

    return on_pod


def _reconcile_step(state: State, obj: Mapping[str, Any]) -> Callable[[], Awaitable[None]]:
    """Reconcile one workload and tell the user what was refused."""

    async def step() -> None:
        assert state.cluster is not None and state.discovery is not None
        cluster, discovery = state.cluster, state.discovery
        outcome = await reconcile(cluster, discovery, state.store, state.settings, obj)
        if outcome is not None:
            await _report(state, obj, outcome)

    return step


async def _report(state: State, obj: Mapping[str, Any], outcome: Outcome) -> None:
    """Log and record an Event for each new refusal; keep the definition's ``Degraded``
    condition in step with which of its workloads fail to evaluate."""
    assert state.cluster is not None and state.discovery is not None
    meta = obj.get("metadata") or {}
    uid = str(meta.get("uid"))
    for refusal in state.reports.new(uid, outcome.refusals):
        log.warning(
            "%s: %s",
            refusal.reason,
            refusal.message,
            extra={"workload": f"{obj.get('kind')}/{meta.get('namespace')}/{meta.get('name')}"},
        )
        await post_event(state.cluster, obj, refusal)
    if state.reports.evaluated(outcome.origin, uid, outcome.evaluation_failure):
        failing = state.reports.failing[outcome.origin]
        await set_degraded(state.cluster, state.discovery, outcome.origin, failing)


async def _requeue(
    state: State, kinds: Iterable[tuple[str, str]], namespaces: Iterable[str] | None = None
) -> None:
    """Queue every served workload of these kinds again (their definition changed, their
    namespace was opted in). Each runs as its own task: the caller does not wait for them."""
    assert state.cluster is not None and state.discovery is not None
    where = tuple(namespaces or state.settings.scope.namespaces) or (None,)
    for group, kind in sorted(kinds):
        resource = state.discovery.find(group, kind)
        if resource is None:
            continue
        for namespace in where:
            try:
                objects = await list_objects(state.cluster, resource, namespace)
            except ClusterError as exc:
                log.warning("cannot list %s to reconcile it again: %s", kind, exc)
                continue
            for obj in objects:
                meta = obj.get("metadata") or {}
                if meta.get("deletionTimestamp") or _owned_by_mapped(state, obj):
                    continue
                if not state.serves(obj):
                    continue
                task = asyncio.get_running_loop().create_task(
                    _submit(state, str(meta.get("uid")), _reconcile_step(state, obj))
                )
                state.later.add(task)
                task.add_done_callback(state.later.discard)


async def _top_owner(state: State, obj: Mapping[str, Any]) -> dict[str, Any] | None:
    """The top-level mapped workload that owns an object: the farthest mapped owner in its
    owner chain, followed as the CLI follows it."""
    assert state.cluster is not None and state.discovery is not None
    chain: list[dict[str, Any]] = []
    await OwnerLookup(state.cluster, state.discovery).complete(chain, [obj])
    mapped = [o for o in chain if _is_mapped(state, o)]
    return mapped[-1] if mapped else None


def _owned_by_mapped(state: State, obj: Mapping[str, Any]) -> bool:
    owner = controller_reference(obj)
    return owner is not None and _is_mapped(state, owner)


def _is_mapped(state: State, obj: Mapping[str, Any]) -> bool:
    """Whether a definition covers an object (or the object an owner reference names)."""
    return state.store.registry.find(str(obj.get("apiVersion")), str(obj.get("kind"))) is not None


async def _patch_status(state: State, obj: Mapping[str, Any], status: Mapping[str, Any]) -> None:
    assert state.cluster is not None and state.discovery is not None
    resource = state.discovery.serving(str(obj.get("apiVersion")), str(obj.get("kind")))
    if resource is None:
        return
    path = resource.path(None, str((obj.get("metadata") or {}).get("name"))) + "/status"
    try:
        await state.cluster.request(
            "PATCH", path, body={"status": status}, content_type=MERGE_PATCH
        )
    except ApiError as exc:
        if exc.code != 404:  # deleted meanwhile
            raise


async def _refresh_discovery(state: State) -> None:
    if state.cluster is not None:
        state.discovery = await discover(state.cluster)


async def _submit(state: State, key: str, step: Callable[[], Awaitable[Any]]) -> None:
    """Queue a step for one workload; a step the server kept failing is queued again
    after ``RETRY_LATER_SECONDS`` (nothing else would bring the workload back)."""

    async def attempt() -> None:
        if await _retrying(state, step):
            return
        task = asyncio.get_running_loop().create_task(_later(state, key, step))
        state.later.add(task)
        task.add_done_callback(state.later.discard)

    await state.queue.submit(key, attempt)


async def _later(state: State, key: str, step: Callable[[], Awaitable[Any]]) -> None:
    await asyncio.sleep(RETRY_LATER_SECONDS)
    await _submit(state, key, step)


async def _retrying(state: State, step: Callable[[], Awaitable[Any]]) -> bool:
    """Run a step, retrying the server's failures with backoff. The one place errors are
    sorted: True when done or not worth retrying (logged), False to retry later."""
    delay = 0.5
    for attempt in range(1, RETRIES + 1):
        try:
            await step()
            state.reconciled += 1
            return True
        except WorkloadNotFoundError:
            return True  # deleted meanwhile: its DELETED event follows
        except ApiError as exc:
            if exc.code in (400, 403, 404, 422):
                state.failures += 1
                log.error("request refused: %s", exc)
                return True
            if attempt == RETRIES:
                log.warning("request failed, retrying later: %s", exc)
                return False
        except ClusterError as exc:
            if attempt == RETRIES:
                log.warning("cluster unavailable, retrying later: %s", exc)
                return False
        except WlmapError as exc:
            state.failures += 1
            log.error("cannot interpret: %s", exc)
            return True
        await asyncio.sleep(delay)
        delay = min(delay * 2, 8.0)
    return False
