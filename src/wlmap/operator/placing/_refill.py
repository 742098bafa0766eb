"""The replacements of a gang's lost pods placed beside its healthy ones.

A gang whose pods are partly bound and partly gated lost pods (to a faulty node, see
:mod:`.placement_faults`, or to a failure of their own) and its controller made
replacements. They are not planned afresh as a new gang would be: the minimal-movement
rule (:mod:`._fault_plan`) chooses the domain that holds the healthy pods and room for the
lost ones, the faulty nodes excluded, and the replacements are narrowed to it and
released. The workload's ``WlmapPlacement`` condition says ``Replaced`` or, while the
domain has no room, ``ReplacementWaiting`` (tried again later).
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from typing import Any

from wlmap.errors import WlmapError
from wlmap.operator.core.gate import is_gated
from wlmap.operator.placing._fault_plan import plan_replacement
from wlmap.operator.placing.capacity import workload_of
from wlmap.operator.placing.node_faults import fault_of
from wlmap.operator.placing.placement_faults import say
from wlmap.operator.placing.release import cluster_objects, release
from wlmap.operator.placing.state import PlacingState
from wlmap.placement.feed import WorkloadGang

__all__ = ["refill"]


async def refill(
    state: PlacingState,
    obj: Mapping[str, Any],
    request: WorkloadGang,
    members: Sequence[Mapping[str, Any]],
    pods: Sequence[Mapping[str, Any]],
) -> bool:
    """Place the gated replacements of a gang whose other pods are bound, inside its
    domain; True when they must wait (to be tried again later)."""
    gated = [p for p in members if is_gated(p)]
    objects = await cluster_objects(state)
    faulty = {
        str((n.get("metadata") or {}).get("name")): reason
        for n in objects
        if n.get("kind") == "Node" and (reason := fault_of(n)) is not None
    }
    owners = {_controller(p) for p in gated}
    lost_on = [
        str((p.get("spec") or {}).get("nodeName"))
        for p in pods
        if (p.get("metadata") or {}).get("deletionTimestamp") and _controller(p) in owners
    ]
    bound = [
        p
        for p in members
        if not is_gated(p) and (p.get("spec") or {}).get("nodeName") not in (None, *faulty)
    ]
    settings = state.settings
    try:
        answer = await asyncio.to_thread(
            plan_replacement,
            objects,
            settings.placement_levels,
            settings.placement_policy,
            request,
            bound,
            len(gated),
            lost_on,
            faulty,
            workload_of,
        )
    except WlmapError as exc:
        await say(state, obj, False, "CannotPlan", str(exc))
        return False
    if answer.term is None:
        await say(state, obj, False, "ReplacementWaiting", answer.message)
        return True
    await release(state, gated, answer.term)
    await say(state, obj, True, "Replaced", answer.message)  # once released, said once
    return False


def _controller(pod: Mapping[str, Any]) -> str | None:
    refs = (pod.get("metadata") or {}).get("ownerReferences") or ()
    return next((str(r.get("uid")) for r in refs if r.get("controller")), None)
