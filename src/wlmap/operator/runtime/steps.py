"""Running the work of one workload: queued, retried, reported.

Errors are sorted in one place (:func:`wlmap.operator.core.work.retrying`): the server's failures are retried with
backoff, then queued again later; a definition that cannot describe an object is logged
and left. What a reconciliation refused is told to the user once (:func:`reconcile_step`).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import Any

from wlmap.errors import ClusterError
from wlmap.operator.core.events import ReconcileWanted
from wlmap.operator.core.gate import is_gated
from wlmap.operator.core.reports import log_name, post_event, set_degraded
from wlmap.operator.core.work import is_mapped, submit
from wlmap.operator.gangs.reconcile import Interpreted, Outcome, forget, reconcile
from wlmap.operator.placing.placement import place
from wlmap.operator.placing.placement_condition import restate, waiting_reason
from wlmap.operator.runtime.state import State
from wlmap.sources.cluster import list_objects
from wlmap.sources.inventory import controller_reference

log = logging.getLogger("wlmap.operator")
# A workload waiting for an object it references is looked at again after these delays,
# doubling from the first to the last and staying there (the operator may not watch the
# referenced kind: its RBAC grants only get on it).
WAIT_FIRST_SECONDS = 5.0
WAIT_LAST_SECONDS = 300.0
PLACE_AGAIN_SECONDS = 30.0


def answer_events(state: State) -> None:
    """Answer the rooms' events: gang sync and the placement controller ask for a
    workload's reconciliation (a gang object changed by another writer, devices added for
    a waiting gang), and the reconcile step runs it in the asking step."""

    async def reconcile_wanted(event: ReconcileWanted) -> None:
        await reconcile_step(state, event.workload)()

    state.events.subscribe(ReconcileWanted, reconcile_wanted)


def reconcile_step(state: State, obj: Mapping[str, Any]) -> Callable[[], Awaitable[None]]:
    """Reconcile one workload and tell the user what was refused."""

    async def step() -> None:
        assert state.cluster is not None and state.discovery is not None
        cluster, discovery = state.cluster, state.discovery
        seen: list[Interpreted] = []
        outcome: Outcome | None = None
        try:
            outcome = await reconcile(
                cluster,
                discovery,
                state.store,
                state.settings,
                obj,
                state.cache,
                seen,
                state.written,
                state.evaluations,
                state.queue,
            )
            if outcome is not None:
                await _report(state, obj, outcome)
            _wait_for_references(state, obj, outcome)
            _retry_quarantined(state, obj, outcome)
            if outcome is not None and _clean(outcome):
                state.read_keys.reconciled(obj)
            else:
                state.read_keys.forget(obj)
        finally:  # gated pods wait for placement, not for the gang objects' writes
            try:
                gated = bool(seen) and any(map(is_gated, seen[0].pods))
                if gated and await place(state, obj, seen[0].view, seen[0].pods):
                    _place_later(state, obj)
                else:  # placed, or nothing to place: added devices need not wake it
                    state.device_waits.done(str((obj.get("metadata") or {}).get("uid")))
                    if seen and not gated:
                        await restate(state, obj)
            finally:  # after placement: its word on a waiting gang is the metrics' reason
                _feed_metrics(state, obj, outcome, seen)

    return step


def _feed_metrics(
    state: State, obj: Mapping[str, Any], outcome: Outcome | None, seen: list[Interpreted]
) -> None:
    """Replace the workload's series with what this reconciliation interpreted."""
    if state.metrics is None or outcome is None:
        return
    interpreted = seen[0] if seen else None
    state.metrics.reconciled(
        obj,
        interpreted.view if interpreted else None,
        interpreted.pods if interpreted else (),
        outcome.origin,
        failed=outcome.evaluation_failure is not None,
        waiting_reason=waiting_reason(state, obj),
    )


def _clean(outcome: Outcome) -> bool:
    """Whether everything was written and nothing refused or awaited: an event that
    changes nothing it read need not run it again."""
    return outcome.evaluation_failure is None and not outcome.refusals and not outcome.waiting_for


def _place_later(state: State, obj: Mapping[str, Any]) -> None:
    """Plan a gang that did not fit again after ``PLACE_AGAIN_SECONDS`` (pods elsewhere
    finishing make room, and nothing of this workload announces it)."""
    key = "placement:" + str((obj.get("metadata") or {}).get("uid"))
    if key in state.rechecks:
        return

    async def again() -> None:
        try:
            await asyncio.sleep(PLACE_AGAIN_SECONDS)
        finally:
            state.rechecks.discard(key)
        await submit(state, key[len("placement:") :], reconcile_step(state, obj))

    state.rechecks.add(key)
    state.spawn(again())


def _wait_for_references(state: State, obj: Mapping[str, Any], outcome: Outcome | None) -> None:
    """Look at a workload again later while an object it references is missing, with a
    delay that doubles each time; forget the delay once the references are there."""
    uid = str((obj.get("metadata") or {}).get("uid"))
    if outcome is None or not outcome.waiting_for:
        state.waiting.pop(uid, None)
        return
    if uid in state.rechecks:
        return  # one look is already planned; other events must not start more
    delay = state.waiting.get(uid)
    delay = WAIT_FIRST_SECONDS if delay is None else min(2 * delay, WAIT_LAST_SECONDS)
    state.waiting[uid] = delay
    log.info(
        "waiting %.0f s for %s",
        delay,
        ", ".join(f"${name}" for name in outcome.waiting_for),
        extra={"workload": log_name(obj)},
    )

    async def again() -> None:
        try:
            await asyncio.sleep(delay)
        finally:
            state.rechecks.discard(uid)
        if uid in state.waiting:  # not deleted, nor evaluated cleanly, meanwhile
            await submit(state, uid, reconcile_step(state, obj))

    state.rechecks.add(uid)
    state.spawn(again())


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
            extra={"workload": log_name(obj)},
        )
        await post_event(state.cluster, obj, refusal)
    quarantined = state.reports.quarantined
    before = quarantined.get(outcome.origin)
    held = outcome.quarantine
    why = f"{held.reason}: {held.message}" if held is not None else None
    if why:
        quarantined[outcome.origin] = why
    else:
        quarantined.pop(outcome.origin, None)
    changed = state.reports.evaluated(outcome.origin, uid, outcome.evaluation_failure)
    if changed or before != why:
        if why and before != why:
            log.warning("definition %s quarantined: %s", outcome.origin, why)
        failing = state.reports.failing[outcome.origin]
        await set_degraded(state.cluster, state.discovery, outcome.origin, failing, why)


def _retry_quarantined(state: State, obj: Mapping[str, Any], outcome: Outcome | None) -> None:
    """Look at a workload again when its definition's quarantine ends (it was skipped,
    or failed as the probe: nothing else brings it back)."""
    if outcome is None or outcome.quarantine is None or outcome.evaluation_failure is None:
        return
    uid = str((obj.get("metadata") or {}).get("uid"))
    key = "quarantine:" + uid
    if key in state.rechecks:
        return
    delay = outcome.quarantine.retry_after

    async def again() -> None:
        try:
            await asyncio.sleep(delay)
        finally:
            state.rechecks.discard(key)
        await submit(state, uid, reconcile_step(state, obj))

    state.rechecks.add(key)
    state.spawn(again())


async def forget_workload(state: State, obj: Mapping[str, Any]) -> None:
    """Delete a deleted workload's gang objects and forget what was reported about it (a
    definition stays ``Degraded`` only for workloads that exist)."""
    assert state.cluster is not None and state.discovery is not None
    await forget(state.cluster, state.discovery, state.settings, obj, state.written)
    uid = str((obj.get("metadata") or {}).get("uid"))
    state.waiting.pop(uid, None)
    state.device_waits.done(uid)
    state.read_keys.forget(obj)
    state.reports.reported.pop(uid, None)
    state.placement_said.pop(uid, None)
    if state.metrics is not None:
        state.metrics.forget(obj)
    for origin, failing in list(state.reports.failing.items()):
        if uid in failing and state.reports.evaluated(origin, uid, None):
            await set_degraded(state.cluster, state.discovery, origin, failing)


async def requeue(
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
                if meta.get("deletionTimestamp") or owned_by_mapped(state, obj):
                    continue
                if not state.serves(obj):
                    continue
                state.spawn(submit(state, str(meta.get("uid")), reconcile_step(state, obj)))


def owned_by_mapped(state: State, obj: Mapping[str, Any]) -> bool:
    owner = controller_reference(obj)
    return owner is not None and is_mapped(state, owner)
