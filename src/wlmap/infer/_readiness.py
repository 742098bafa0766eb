"""Readiness counts: Running or Initializing from how many replicas are ready of how many wanted.

Controllers of replicated workloads copy the apps/v1 status vocabulary: ``replicas``
(how many exist or are wanted) beside ``readyReplicas`` or ``availableReplicas``. Where
the status has such a pair, all wanted replicas ready reads as Running and fewer as
Initializing, but only while no condition or phase the draft maps says otherwise: the
counts fill the gap those leave, they do not overrule them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from wlmap.definitions.status import GenericStatus
from wlmap.infer._counts import find_counts
from wlmap.infer._evidence import Evidence, Strength
from wlmap.infer._schema import Node, is_integer, jq_path, show

# Ready first: "ready" is what Running means in the vocabulary; available adds a delay.
_READY = ("readyReplicas", "availableReplicas")


@dataclass(frozen=True)
class Readiness:
    """jq that holds when every wanted replica is ready, and when fewer are."""

    all_ready: str
    fewer: str
    evidence: Evidence


def find_readiness(status: Node, spec: Node | None) -> Readiness | None:
    """The ready and wanted counts of ``status`` (wanted from the status, else the spec),
    or, failing those, the ready count of each role beside the role's count."""
    ready = next((n for name in _READY if is_integer(n := status.child(name))), None)
    if ready is None:
        return _per_role(status, spec) if spec is not None else None
    wanted = status.child("replicas")
    if not is_integer(wanted) and spec is not None:
        wanted = spec.child("replicas")
    have = f"({jq_path(ready.path, optional=False)} // 0)"
    if wanted is not None and is_integer(wanted):
        want, of = f"({jq_path(wanted.path, optional=False)} // 0)", show(wanted.path)
    elif spec is not None and _single_pod(spec):
        want, of = "1", "the one pod of a template with no count"
    else:
        return None
    return Readiness(
        f"{want} > 0 and {have} >= {want}",
        f"{have} < {want}",
        Evidence(
            "running/initializing",
            f"{ready.path[-1]} of {of}",
            show(ready.path),
            "apps/v1 status counts; used while no mapped condition or phase holds",
            Strength.GUESS,
        ),
    )


def _single_pod(spec: Node) -> bool:
    """A spec with one template directly in it and no count anywhere beside it: one pod."""
    template = spec.child("template")
    return (
        template is not None
        and template.child("spec") is not None
        and find_counts(spec).replicas is None
        and not any(n.type == "array" for n in spec.children() if n.path[-1] != "template")
    )


def readiness_matchers(
    readiness: Readiness, others: Sequence[str], suspend: str | None
) -> dict[GenericStatus, str]:
    """jq per state: all wanted ready is Running, fewer is Initializing.

    ``others`` are jq tests of the signals already mapped; the counts apply only where
    none of them holds, and only once the status has been written.
    """
    # No status at all: the controller has not reported yet, which the counts cannot tell
    # from "none ready".
    guard = " and ((.status // {}) | length) > 0"
    if others:
        guard += f" and (({' or '.join(others)}) | not)"
    if suspend is not None:
        guard += f" and {suspend} != true"
    return {
        GenericStatus.RUNNING: f"{readiness.all_ready}{guard}",
        GenericStatus.INITIALIZING: f"{readiness.fewer}{guard}",
    }


def _named_list(node: Node) -> Node | None:
    """The items of a list directly below ``node`` whose items are named by ``name``."""
    items = node.items if node.type == "array" else None
    if items is None or (items.child("name") or items).type != "string":
        return None
    return items if items.child("name") is not None else None


def _per_role(status: Node, spec: Node) -> Readiness | None:
    """A list of roles in the spec (named items with a count) and a list in the status
    whose named items count the ready ones (``ready``): every role ready is Running."""
    roles = [
        (node, items, count)
        for node in spec.children()
        if len(node.path) == len(spec.path) + 1
        and (items := _named_list(node)) is not None
        and (count := find_counts(items).replicas) is not None
    ]
    states = [
        (node, items)
        for node in status.children()
        if len(node.path) == len(status.path) + 1
        and (items := _named_list(node)) is not None
        and is_integer(items.child("ready"))
    ]
    if len(roles) != 1 or len(states) != 1:
        return None
    (role_list, _, count), (status_list, _) = roles[0], states[0]
    fallback = count.default if count.default is not None else 1
    roles_jq = jq_path(role_list.path, optional=False)
    status_jq = jq_path(status_list.path, optional=False)
    every = (
        f"([{roles_jq}[]? | {{name, want: (.{count.field} // {fallback})}}] as $want"
        f" | ({status_jq} // []) as $have"
        f" | ($want | length) > 0 and all($want[]; .name as $n | .want as $w"
        f" | (([$have[] | select(.name == $n) | .ready] | first) // 0) >= $w))"
    )
    return Readiness(
        every,
        f"({every} | not)",
        Evidence(
            "running/initializing",
            f"ready of each {show(status_list.path)} item against {count.field!r}",
            show(status_list.path),
            "a list of named roles in the spec and of their ready counts in the status; "
            "used while no mapped condition or phase holds",
            Strength.GUESS,
        ),
    )
