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
from collections.abc import Awaitable, Callable, Coroutine, Mapping
from dataclasses import dataclass, field
from typing import Any

import kopf

from wlmap.definitions.validation import validate_definition
from wlmap.errors import ClusterError, DefinitionError, WlmapError, WorkloadNotFoundError
from wlmap.operator.cache import complete_chain, has_unlinked_pods, operator_cache
from wlmap.operator.conditions import definition_status
from wlmap.operator.login import login
from wlmap.operator.queue import WorkQueue
from wlmap.operator.reconcile import forget, reconcile
from wlmap.operator.settings import Settings
from wlmap.operator.store import DefinitionStore
from wlmap.sources.cluster import (
    ApiError,
    Cluster,
    Discovery,
    discover,
    origin_of,
    parse_stored,
)
from wlmap.sources.cluster.cache import ClusterCache
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
    cache: ClusterCache | None = None  # None: every reconciliation reads the cluster anew
    queue: WorkQueue = field(default_factory=WorkQueue)
    later: set[asyncio.Task[None]] = field(default_factory=set)
    reconciled: int = 0
    failures: int = 0


def register(registry: kopf.OperatorRegistry, state: State, kinds: set[tuple[str, str]]) -> None:
    """Register every handler: definitions, the workload kinds, and pods."""

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
        if state.settings.cached_reads:
            state.cache = operator_cache(
                state.cluster,
                state.discovery,
                state.settings,
                kinds,
                lambda obj: _spawn(state, _queue_top_owner(state, obj)),
            )
            state.cache.start()

    @kopf.on.cleanup(registry=registry)
    async def cleanup(**_: Any) -> None:
        if state.cache is not None:
            await state.cache.stop()
        if state.cluster is not None:
            await state.cluster.close()

    @kopf.on.probe(id="reconciled", registry=registry)
    def reconciled(**_: Any) -> int:
        return state.reconciled

    for group, kind in DEFINITION_TYPES:
        kopf.on.event(group=group, kind=kind, registry=registry)(_definition_handler(state))
    for group, kind in sorted(kinds):
        kopf.on.event(group=group, kind=kind, registry=registry)(_workload_handler(state))
    if state.settings.pod_link is not None and not state.settings.cached_reads:
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
            state.store.forget(origin)
            log.info("definition removed", extra={"definition": origin})
            return
        problems = []
        definition = None
        try:
            definition = parse_stored(obj)
            problems = [p for p in validate_definition(definition) if p.severity != "error"]
        except DefinitionError as exc:
            problems = list(exc.problems)
        generation = (obj.get("metadata") or {}).get("generation")
        if definition is not None:
            state.store.accept(origin, definition, generation)
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

    return on_definition


def _workload_handler(state: State) -> Callable[..., Awaitable[None]]:
    async def on_workload(event: Mapping[str, Any], **_: Any) -> None:
        obj = dict(event.get("object") or {})
        if state.cache is not None:
            state.cache.observe(event.get("type"), obj)
        if _owned_by_mapped(state, obj):
            # its owner's gang covers it; pods seen before it join that gang now
            if state.cache is not None and has_unlinked_pods(state.cache, state.settings, obj):
                await _queue_top_owner(state, obj)
            return
        assert state.cluster is not None and state.discovery is not None
        cluster, discovery = state.cluster, state.discovery
        uid = str((obj.get("metadata") or {}).get("uid"))
        terminating = (obj.get("metadata") or {}).get("deletionTimestamp")
        if event.get("type") == "DELETED" or terminating:  # a gang for nothing holds capacity
            await _submit(state, uid, lambda: forget(cluster, discovery, state.settings, obj))
            return
        await _submit(state, uid, lambda: _reconcile(state, obj))

    return on_workload


def _pod_handler(state: State) -> Callable[..., Awaitable[None]]:
    async def on_pod(event: Mapping[str, Any], **_: Any) -> None:
        if event.get("type") == "DELETED":
            return
        pod = dict(event.get("object") or {})
        if not (pod.get("metadata") or {}).get("ownerReferences"):
            return
        await _queue_top_owner(state, pod)

    return on_pod


async def _queue_top_owner(state: State, obj: Mapping[str, Any]) -> None:
    """Reconcile the top-level workload that owns an object, if any (not one being
    deleted: its gangs are gone, and its pods' deletions must not bring them back)."""
    owner = await _top_owner(state, obj)
    if owner is not None and not (owner.get("metadata") or {}).get("deletionTimestamp"):
        await _submit(
            state, str((owner.get("metadata") or {}).get("uid")), lambda: _reconcile(state, owner)
        )


async def _reconcile(state: State, obj: Mapping[str, Any]) -> None:
    assert state.cluster is not None and state.discovery is not None
    await reconcile(
        state.cluster, state.discovery, state.store, state.settings, obj, cache=state.cache
    )


async def _top_owner(state: State, obj: Mapping[str, Any]) -> dict[str, Any] | None:
    """The top-level mapped workload that owns an object: the farthest mapped owner in its
    owner chain, followed as the CLI follows it."""
    assert state.cluster is not None and state.discovery is not None
    chain: list[dict[str, Any]] = []
    if state.cache is not None:
        chain = await complete_chain(state.cache, obj)
    else:
        await OwnerLookup(state.cluster, state.discovery).complete(chain, [obj])
    mapped = [o for o in chain if _is_mapped(state, o)]
    return mapped[-1] if mapped else None


def _spawn(state: State, step: Coroutine[Any, Any, None]) -> None:
    """Run a step beside the caller (a watch, which must not wait for reconciliations)."""
    task = asyncio.get_running_loop().create_task(step)
    state.later.add(task)
    task.add_done_callback(state.later.discard)


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
