"""The placement controller's word on a workload: its ``WlmapPlacement`` condition and
Events.

``True`` placed, ``False`` waiting, with the reason (pods still to come, the plan's
shortfall, a fault being handled). The condition is written at the workload's current
version, read again after a conflict, and written again when a reconcile finds the
status lost it (the StatefulSet controller replaces the whole status); an Event goes with
each change.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from wlmap.operator.core.conditions import condition
from wlmap.operator.core.reports import Refusal, log_name, post_event
from wlmap.operator.placing.state import PlacingState
from wlmap.sources.cluster import ApiError
from wlmap.sources.cluster.connection import MERGE_PATCH

__all__ = ["CONDITION", "forget", "report", "restate", "waiting_reason"]

log = logging.getLogger("wlmap.operator")
CONDITION = "WlmapPlacement"


def forget(state: PlacingState, obj: Mapping[str, Any]) -> None:
    """Nothing is to be said again about the workload (it left placement)."""
    state.placement_said.pop(_uid(obj), None)


def waiting_reason(state: PlacingState, obj: Mapping[str, Any]) -> str | None:
    """The reason the placement condition last gave for the workload's waiting
    (``DoesNotFit``, ``CannotPlan``, ``WaitingForPods``...), None while it is placed or
    placement has nothing to say about it."""
    said = state.placement_said.get(_uid(obj))
    return None if said is None or said[0] else said[1]


async def restate(state: PlacingState, obj: Mapping[str, Any]) -> None:
    """Write the workload's placement condition again if its status lost it: the
    StatefulSet controller replaces the whole status when its replica counts change."""
    said = state.placement_said.get(_uid(obj))
    if said is not None:  # with the Event when a failed write left it unsent
        holds, reason, message, unsent = said
        await report(state, obj, holds, reason, message, event=unsent)


async def report(
    state: PlacingState,
    obj: Mapping[str, Any],
    holds: bool,
    reason: str,
    message: str,
    *,
    event: bool = True,
) -> None:
    """Set the workload's ``WlmapPlacement`` condition; when it changes, log it and (with
    ``event``: pods still arriving change the count often) record an Event. A workload
    without a status subresource gets the Event only."""
    assert state.cluster is not None and state.discovery is not None
    uid = _uid(obj)
    # kept to be said again if the status loses it; the Event is owed until it is sent
    # (a condition already there was announced when it was written)
    state.placement_said[uid] = (holds, reason, message, False)
    if _says(obj, holds, reason, message):
        return  # the workload as reconciled says it already: no read, no write
    state.placement_said[uid] = (holds, reason, message, event)
    meta = obj.get("metadata") or {}
    resource = state.discovery.serving(str(obj.get("apiVersion")), str(obj.get("kind")))
    if resource is None:
        return
    path = resource.path(meta.get("namespace"), str(meta.get("name")))
    outcome = await _write_condition(state, path, holds, reason, message)
    if outcome == "gone":
        return
    if outcome == "said":  # announced when it was written
        state.placement_said[uid] = (holds, reason, message, False)
        return
    if outcome == "no status":  # nothing to say again either
        state.placement_said.pop(uid, None)
    (log.info if holds else log.warning)(
        "placement %s: %s", reason, message, extra={"workload": log_name(obj)}
    )
    if event:
        kind = "Normal" if holds else "Warning"
        await post_event(state.cluster, obj, Refusal(reason, message), kind)
    if uid in state.placement_said:
        state.placement_said[uid] = (holds, reason, message, False)


async def _write_condition(
    state: PlacingState, path: str, holds: bool, reason: str, message: str
) -> str:
    """Write the condition at the workload's current version: ``written``, ``said`` (it
    says so already), ``gone`` or ``no status`` (no status subresource: the Event alone
    says it). A conflict (its controller wrote status meanwhile, as a Deployment's does
    while pods start) is read again and retried: after a release nothing else would bring
    the condition back."""
    assert state.cluster is not None
    for attempt in range(_CONFLICT_RETRIES + 1):
        try:
            current = await state.cluster.request("GET", path)
        except ApiError as exc:
            if exc.code == 404:
                return "gone"
            raise
        previous = list((current.get("status") or {}).get("conditions") or ())
        before = next((c for c in previous if c.get("type") == CONDITION), None)
        new = condition(previous, CONDITION, holds, reason, message)
        if before is not None and all(
            before.get(k) == new[k] for k in ("status", "reason", "message")
        ):
            return "said"
        kept = [c for c in previous if c.get("type") != CONDITION]
        version = (current.get("metadata") or {}).get("resourceVersion")
        body = {"metadata": {"resourceVersion": version}, "status": {"conditions": [*kept, new]}}
        try:
            await state.cluster.request(
                "PATCH", path + "/status", body=body, content_type=MERGE_PATCH
            )
        except ApiError as exc:
            if exc.code in (404, 405):
                return "gone" if exc.code == 404 else "no status"
            if exc.code != 409 or attempt == _CONFLICT_RETRIES:
                raise
            continue
        return "written"
    return "written"


_CONFLICT_RETRIES = 5


def _says(obj: Mapping[str, Any], holds: bool, reason: str, message: str) -> bool:
    conditions = (obj.get("status") or {}).get("conditions") or ()
    current = next((c for c in conditions if c.get("type") == CONDITION), None)
    wanted = {"status": "True" if holds else "False", "reason": reason, "message": message}
    return current is not None and all(current.get(k) == v for k, v in wanted.items())


def _uid(obj: Mapping[str, Any]) -> str:
    return str((obj.get("metadata") or {}).get("uid"))
