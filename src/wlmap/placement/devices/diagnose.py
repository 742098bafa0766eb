"""Why a pod's claims fit a node or not, told the way a user fixes them.

For a pod that got devices, :func:`kept_constraints` names each ``matchAttribute``
constraint with the value its devices share. For a pod that did not, :func:`why_not`
looks at every node and names the first thing that rules the node out: the DeviceClass's
selectors, or one selector of a request, leaving fewer free devices than the request
needs; or, when every request has enough candidates, the ``matchAttribute`` constraint
that no set of them keeps. The reasons are counted over nodes.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import replace

from wlmap.placement.devices.allocator import DeviceChoice, allocate_pod
from wlmap.placement.devices.device_state import DeviceState, PodClaims
from wlmap.placement.devices.dra_objects import Claim, Device, Request

__all__ = ["kept_constraints", "why_not"]


def kept_constraints(pod: PodClaims, choices: Sequence[DeviceChoice]) -> list[str]:
    """Each claim constraint of the pod with the value its chosen devices share."""
    found = []
    for claim in pod.claims:
        for constraint in claim.constraints:
            values = {
                c.device.attribute(constraint.attribute)
                for c in choices
                if c.claim == claim.name and constraint.covers(c.request)
            }
            shown = ", ".join(sorted(str(v) for v in values))
            found.append(f"{claim.name}: matchAttribute {constraint.attribute} = {shown}")
    return found


def why_not(pod: PodClaims, state: DeviceState) -> str:
    """Why the pod fits no node on the free devices of ``state``, counted over nodes
    (``<n> node(s): <reason>``, most nodes first); says so when it fits some node alone.

    Raises:
        PlacementInputError: a selector fails or a class is missing.
    """
    reasons: Counter[str] = Counter()
    for node in state.nodes:
        reasons[_node_reason(pod, node, state)] += 1
    fits = reasons.pop("", 0)
    parts = [f"{_nodes(count)}: {reason}" for reason, count in _ranked(reasons)]
    if fits:
        parts.insert(0, f"{_nodes(fits)}: fits alone, but not with the rest of the gang")
    return "; ".join(parts) or "no node has DRA devices"


def _nodes(count: int) -> str:
    return f"{count} node{'s' * (count != 1)}"


def _ranked(reasons: Counter[str]) -> list[tuple[str, int]]:
    return sorted(reasons.items(), key=lambda item: (-item[1], item[0]))


def _node_reason(pod: PodClaims, node: str, state: DeviceState) -> str:
    free = state.free(node)
    for claim in pod.claims:
        for request in claim.requests:
            options = request.alternatives or (request,)
            shortfalls = [_shortfall(claim, option, free, state) for option in options]
            if all(shortfalls):
                return shortfalls[0]
    if allocate_pod(pod, node, free, state) is not None:
        return ""
    for claim in pod.claims:
        for index, constraint in enumerate(claim.constraints):
            loosened = replace(claim, constraints=claim.constraints[:index])
            trial = PodClaims(pod.name, tuple(loosened if c is claim else c for c in pod.claims))
            if allocate_pod(trial, node, free, state) is None:
                continue
            return f"{claim.name}: matchAttribute {constraint.attribute} cannot be kept"
    return f"{pod.name}: its requests together need more free devices"


def _shortfall(claim: Claim, request: Request, free: Sequence[Device], state: DeviceState) -> str:
    """What leaves the request too few free devices on a node, or '' when enough remain."""
    need = max(request.count, 1)
    state.candidates(claim, request, ())  # a missing class is an error, even on no device
    device_class = state.inventory.classes[request.device_class]
    engine = state.engine
    left = [
        d
        for d in free
        if engine.matches(d, device_class.selectors, f"DeviceClass {device_class.name}")
    ]
    if len(left) < need:
        return (
            f"{claim.name} request {request.name}: DeviceClass {device_class.name} matches "
            f"{len(left)} free device{'s' * (len(left) != 1)}, the request needs {need}"
        )
    for index, expression in enumerate(request.selectors):
        owner = f"{claim.name} request {request.name}"
        left = [d for d in left if engine.matches(d, (expression,), owner)]
        if len(left) < need:
            return (
                f"{owner}: selector #{index} {expression!r} matches {len(left)} free "
                f"device{'s' * (len(left) != 1)}, the request needs {need}"
            )
    return ""
