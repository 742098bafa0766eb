"""The operator's kopf handlers, registered for the kinds the definitions cover.

Every handler is level-based (``on.event``): it reads the current state and applies the
desired state, so repeated, reordered or replayed events (after a restart or a dropped
watch) converge to the same result, and nothing is written into users' objects but the
pod link annotations. The work each event asks for is queued per workload (``steps``).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import Any

import kopf

from wlmap.definitions.validation import validate_definition
from wlmap.errors import DefinitionError
from wlmap.operator.core.conditions import definition_status
from wlmap.operator.core.gate import OPT_IN, WEBHOOK_CONFIGURATION, is_gated
from wlmap.operator.core.owners import complete_chain
from wlmap.operator.core.scope import GANG_LABEL, NOT_TOP_LEVEL_KINDS
from wlmap.operator.core.settings import GANG_KINDS, WORKLOAD_UID_LABEL
from wlmap.operator.core.webhook import mutations, wanted, webhook_server
from wlmap.operator.core.work import is_mapped, retrying, submit
from wlmap.operator.deploy.webhooks import inject_ca
from wlmap.operator.gangs.admission import register_pod_groups
from wlmap.operator.gangs.cache import has_unlinked_pods, operator_cache
from wlmap.operator.gangs.drift import gang_handler, gang_listener, sweep
from wlmap.operator.gangs.sweeps import Sweeps
from wlmap.operator.placing._slice_faults import register_fault_watches
from wlmap.operator.placing.capacity import CapacityCache
from wlmap.operator.placing.gating import register_webhook
from wlmap.operator.placing.release import release
from wlmap.operator.runtime.leader import LeaderElection, lease_name
from wlmap.operator.runtime.login import login
from wlmap.operator.runtime.metrics import OperatorMetrics
from wlmap.operator.runtime.state import State
from wlmap.operator.runtime.steps import (
    answer_events,
    forget_workload,
    owned_by_mapped,
    reconcile_step,
    requeue,
)
from wlmap.schedulers import PodLink
from wlmap.sources.cluster import ApiError, Cluster, discover, list_objects, origin_of, parse_stored
from wlmap.sources.cluster.connection import MERGE_PATCH
from wlmap.sources.cluster.definitions import DEFINITION_TYPES
from wlmap.sources.cluster.owners import OwnerLookup

log = logging.getLogger("wlmap.operator")
__all__ = ["NOT_TOP_LEVEL_KINDS", "register"]


def register(registry: kopf.OperatorRegistry, state: State, kinds: set[tuple[str, str]]) -> None:
    """Register every handler: definitions, the workload kinds, and pods."""
    state.kinds = set(kinds)
    answer_events(state)

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
        server = webhook_server(state) if wanted(state.settings) else None
        if server is not None:  # kopf serves the mutations and, unless deployed, keeps their config
            settings.admission.server = server
            if state.settings.webhook_managed:
                settings.admission.managed = WEBHOOK_CONFIGURATION
        state.cluster = await Cluster.connect(state.settings.kubeconfig, state.settings.context)
        if server is not None and not state.settings.webhook_managed:
            await inject_ca(
                state.cluster,
                Path(str(server.certfile)).read_bytes(),
                len(mutations(state.settings)),  # the bundle lists as many webhooks
            )
        state.discovery = await discover(state.cluster)
        namespaces = state.discovery.find("", "Namespace")
        if namespaces is not None:  # before the watches start: their first events need it
            for found in await list_objects(state.cluster, namespaces):
                meta = found.get("metadata") or {}
                state.namespace_labels[str(meta.get("name"))] = dict(meta.get("labels") or {})
        if state.settings.placement:  # nodes and pods watched for plans
            state.capacity = CapacityCache(
                state.cluster,
                state.discovery.find("", "Node"),
                state.discovery.find("", "Pod"),
                state.settings.placement_levels,
            )
            state.capacity.start()
        _start_reads(state, kinds)
        if state.settings.metrics_port:
            await _start_metrics(state)
        if state.settings.leader_elect:
            await _elect(state)

    @kopf.on.cleanup(registry=registry)
    async def cleanup(**_: Any) -> None:
        if state.leader is not None:
            await state.leader.release()
        await _stop_reads(state)

    @kopf.on.probe(id="reconciled", registry=registry)
    def reconciled(**_: Any) -> int:
        return state.reconciled

    kopf.on.event("", "v1", "namespaces", registry=registry)(_namespace_handler(state))
    if state.settings.placement:
        register_webhook(registry, state)
        register_fault_watches(registry, state)
    register_pod_groups(registry, state, state.evaluations)  # for a target that needs it
    if not state.settings.cached_reads:  # else the gang cache watches them (``drift``)
        _register_gang_watches(registry, state)
    for group, kind in DEFINITION_TYPES:
        kopf.on.event(group=group, kind=kind, registry=registry)(_definition_handler(state))
    for group, kind in sorted(kinds):
        kopf.on.event(group=group, kind=kind, registry=registry)(_workload_handler(state))
    if state.settings.pod_link is not None and not state.settings.cached_reads:
        _register_pod_watch(registry, state, state.settings.pod_link)


def _register_pod_watch(registry: kopf.OperatorRegistry, state: State, link: PodLink) -> None:
    """Pods without the group link (annotation or label) come to the pod handler."""
    unlinked = {link.name: kopf.ABSENT}
    kopf.on.event(
        "",
        "v1",
        "pods",
        annotations=unlinked if link.place == "annotations" else None,
        labels=unlinked if link.place == "labels" else None,
        registry=registry,
    )(_pod_handler(state))


async def _stop_reads(state: State) -> None:
    """Stop the watches and the metrics, and close the connection."""
    if state.cache is not None:
        await state.cache.stop()
    if state.metrics is not None:
        await state.metrics.stop()
    if state.capacity is not None:
        await state.capacity.stop()
    if state.cluster is not None:
        await state.cluster.close()


async def _start_metrics(state: State) -> None:
    """Serve the metrics from what the operator reads (``--metrics-port``)."""
    assert state.cluster is not None and state.discovery is not None
    state.metrics = OperatorMetrics(state.settings)
    await state.metrics.start(state.cluster, state.discovery, state.namespace_labels)
    state.spawn(state.metrics.synced(state.cache))


def _start_reads(state: State, kinds: set[tuple[str, str]]) -> None:
    """Start the orphan sweeps and, with cached reads, the cache."""
    sweeps = Sweeps(state, sweep)
    state.spawn(sweeps.run())
    if state.settings.cached_reads:
        _start_cache(state, kinds, sweeps)


def _start_cache(state: State, kinds: set[tuple[str, str]], sweeps: Sweeps) -> None:
    """Start the watch-fed cache: pods, claims, owners and the operator's gang objects
    (of the served namespaces only; a gang object watch that fails brings sweeps)."""
    assert state.cluster is not None and state.discovery is not None
    state.cache = operator_cache(
        state.cluster,
        state.discovery,
        state.settings,
        kinds,
        lambda obj: state.spawn(_queue_top_owner(state, obj)),
        state.written,
        gang_listener(state),
        served=state.serves_namespace,
        interrupted=sweeps.interrupted,
    )
    for name in sorted(state.namespace_labels):  # as listed at start; the handler follows
        if state.serves_namespace(name):
            state.cache.namespace_changed(name, True)
    state.cache.start()
    state.spawn(sweep(state))  # orphans, as kopf's first listing of them finds them


def _register_gang_watches(registry: kopf.OperatorRegistry, state: State) -> None:
    for api_version, kind in GANG_KINDS[state.settings.target]:
        group, _, version = api_version.rpartition("/")
        kopf.on.event(
            group=group,
            version=version,
            kind=kind,
            labels={WORKLOAD_UID_LABEL: kopf.PRESENT},
            registry=registry,
        )(gang_handler(state))


def _definition_handler(state: State) -> Callable[..., Awaitable[None]]:
    async def on_definition(event: Mapping[str, Any], **_: Any) -> None:
        obj = dict(event.get("object") or {})
        origin = origin_of(obj)
        if event.get("type") == "DELETED":
            dropped = state.store.forget(origin)
            state.evaluations.forget(origin)
            state.reports.quarantined.pop(origin, None)
            log.info("definition removed", extra={"definition": origin})
            if dropped is not None and dropped.root_gvk is not None:
                await requeue(state, {(dropped.root_gvk.group, dropped.root_gvk.kind)})
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
        in_use = state.store.generation_in_use(origin)
        failures = state.reports.failures(origin)
        quarantine = state.reports.quarantined.get(origin)
        status = definition_status(obj, problems, crd, in_use, failures, quarantine)
        await retrying(state, lambda: _patch_status(state, obj, status))
        if changed and crd and definition is not None and definition.root_gvk is not None:
            await requeue(state, {(definition.root_gvk.group, definition.root_gvk.kind)})

    return on_definition


def _namespace_handler(state: State) -> Callable[..., Awaitable[None]]:
    async def on_namespace(event: Mapping[str, Any], **_: Any) -> None:
        meta = (event.get("object") or {}).get("metadata") or {}
        name = str(meta.get("name"))
        before = (
            state.serves_namespace(name),
            state.namespace_labels.get(name, {}).get(GANG_LABEL),
            state.namespace_labels.get(name, {}).get(OPT_IN),
        )
        if event.get("type") == "DELETED":
            state.namespace_labels.pop(name, None)
            if state.cache is not None and before[0]:
                state.cache.namespace_changed(name, False)  # its watches end
            return
        state.namespace_labels[name] = dict(meta.get("labels") or {})
        labels = state.namespace_labels[name]
        if state.metrics is not None:
            state.metrics.namespace(name, labels)
        after = (state.serves_namespace(name), labels.get(GANG_LABEL), labels.get(OPT_IN))
        if state.cache is not None and after[0] != before[0]:
            log.info(
                "namespace %s",
                "served" if after[0] else "no longer served",
                extra={"namespace": name},
            )
            state.cache.namespace_changed(name, after[0])  # its pods are kept, or no longer
        # opted in (or core kinds, or placement, opted in or out): catch up
        if after[0] and after != before:
            await requeue(state, state.kinds, (name,))

    return on_namespace


def _workload_handler(state: State) -> Callable[..., Awaitable[None]]:
    async def on_workload(event: Mapping[str, Any], **_: Any) -> None:
        obj = dict(event.get("object") or {})
        if state.cache is not None:
            state.cache.observe(event.get("type"), obj)
        if owned_by_mapped(state, obj):
            # its owner's gang covers it; pods seen before it join that gang now
            if state.cache is not None and has_unlinked_pods(
                state.cache, state.settings, obj, state.written
            ):
                await _queue_top_owner(state, obj)
            return
        uid = str((obj.get("metadata") or {}).get("uid"))
        terminating = (obj.get("metadata") or {}).get("deletionTimestamp")
        if event.get("type") == "DELETED" or terminating:  # a gang for nothing holds capacity
            if state.serves_namespace((obj.get("metadata") or {}).get("namespace")):
                await submit(state, uid, lambda: forget_workload(state, obj))
            return
        if state.serves(obj) and not _unchanged(state, obj):
            await submit(state, uid, reconcile_step(state, obj))

    return on_workload


def _unchanged(state: State, obj: Mapping[str, Any]) -> bool:
    """Whether the event changes nothing a reconciliation reads (with cached reads only:
    then its pods' changes bring the workload back on their own, see ``read_keys``)."""
    if state.cache is None:
        return False
    entry = state.store.registry.find(str(obj.get("apiVersion")), str(obj.get("kind")))
    if entry is None:
        return False
    if state.read_keys.unchanged(obj, entry.definition):
        state.skipped += 1
        return True
    return False


def _pod_handler(state: State) -> Callable[..., Awaitable[None]]:
    async def on_pod(event: Mapping[str, Any], **_: Any) -> None:
        if event.get("type") == "DELETED":
            return
        pod = dict(event.get("object") or {})
        meta = pod.get("metadata") or {}
        if not meta.get("ownerReferences") or not state.serves_namespace(meta.get("namespace")):
            return
        await _queue_top_owner(state, pod)

    return on_pod


async def _elect(state: State) -> None:
    """Join the election: one attempt now (a replica that wins here needs no catching up:
    the watches' initial listing does the work), then renewals in the background. A replica
    that takes over later reconciles every workload, checks every gang object and runs the
    steps the controllers left for a takeover (``State.takeover``)."""
    assert state.cluster is not None
    settings = state.settings
    started = False

    async def on_leading() -> None:
        if started:
            await requeue(state, state.kinds)
            await sweep(state)
            for step in state.takeover:
                state.spawn(step())

    state.leader = LeaderElection(
        state.cluster,
        settings.lease_namespace or settings.operator_namespace or "default",
        lease_name(settings.target, settings.scope_text),
        settings.lease_seconds,
        on_leading,
    )
    await state.leader.step()
    started = True
    if not state.leader.leading:
        log.info("following: another replica holds the lease", extra={"lease": state.leader.name})
    task = asyncio.get_running_loop().create_task(state.leader.run())
    state.later.add(task)


async def _queue_top_owner(state: State, obj: Mapping[str, Any]) -> None:
    """Reconcile the top-level workload that owns an object, if it is served (and not
    being deleted: its gangs are gone, and its pods' deletions must not bring them back)."""
    owner = await _top_owner(state, obj)
    if (
        owner is not None
        and state.serves(owner)
        and not (owner.get("metadata") or {}).get("deletionTimestamp")
    ):
        uid = str((owner.get("metadata") or {}).get("uid"))
        await submit(state, uid, reconcile_step(state, owner))
    elif is_gated(obj) and (state.cache is None or state.cache.index.missing_owner(obj) is None):
        # gated by its pod's annotation, but its known workload is not one placement serves:
        # nothing would ever release it
        await retrying(state, lambda: release(state, [obj], None))


async def _top_owner(state: State, obj: Mapping[str, Any]) -> dict[str, Any] | None:
    """The top-level mapped workload that owns an object: the farthest mapped owner in its
    owner chain, followed as the CLI follows it."""
    assert state.cluster is not None and state.discovery is not None
    chain: list[dict[str, Any]] = []
    if state.cache is not None:
        chain = await complete_chain(state.cache, obj)
    else:
        await OwnerLookup(state.cluster, state.discovery).complete(chain, [obj])
    mapped = [o for o in chain if is_mapped(state, o)]
    return mapped[-1] if mapped else None


async def _patch_status(state: State, obj: Mapping[str, Any], status: Mapping[str, Any]) -> None:
    assert state.cluster is not None and state.discovery is not None
    if not state.writes:
        return  # the leader writes it
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
