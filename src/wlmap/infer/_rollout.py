"""Rolling updates: Running while an update replaces replicas that keep serving.

Controllers of replicated workloads copy the apps/v1 trio ``replicas``,
``readyReplicas`` and ``updatedReplicas`` into their status. Fewer updated replicas
than replicas is an update under way (the Deployment's rollout): the old replicas are
replaced a few at a time and the rest go on serving, so with some of them ready the
workload runs, even while a ``Progressing`` condition (mapped to Initializing) says
the update progresses. Scaling up is not an update: there every replica is already
updated. A guess, used while no state above Running holds.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from wlmap.definitions.status import GenericStatus
from wlmap.infer._evidence import Evidence, Strength
from wlmap.infer._failures import matcher_jq
from wlmap.infer._phase import by_expression
from wlmap.infer._schema import Node, is_integer, jq_path, show

_READY = ("readyReplicas", "availableReplicas")


@dataclass(frozen=True)
class Rollout:
    """jq that holds while an update replaces replicas and some of them are ready."""

    test: str
    evidence: Evidence


def find_rollout(status: Node) -> Rollout | None:
    """The update under way from ``status``'s replicas, updated and ready counts."""
    wanted, updated = status.child("replicas"), status.child("updatedReplicas")
    ready = next((n for name in _READY if is_integer(n := status.child(name))), None)
    if ready is None or not is_integer(wanted) or not is_integer(updated):
        return None
    assert wanted is not None and updated is not None

    def count(node: Node) -> str:
        return f"({jq_path(node.path, optional=False)} // 0)"

    return Rollout(
        f"{count(updated)} < {count(wanted)} and {count(ready)} > 0",
        Evidence(
            "running (rolling update)",
            f"{updated.path[-1]} < {wanted.path[-1]}, {ready.path[-1]} > 0",
            show(updated.path),
            "apps/v1 status counts: fewer updated than replicas is an update under way, "
            "the ready replicas serving meanwhile",
            Strength.GUESS,
        ),
    )


def rollout_matchers(
    rollout: Rollout,
    mappings: dict[GenericStatus, list[dict[str, Any]]],
    higher: Sequence[str],
    suspend: str | None,
    signals: tuple[str | None, str | None],
) -> None:
    """Add Running while ``rollout`` holds and none of ``higher`` (jq tests of the states
    above Running) does; Initializing then gives way to it. ``signals`` are the draft's
    phase and conditions paths, which its matchers read."""
    running = rollout.test
    if higher:
        running += f" and (({' or '.join(higher)}) | not)"
    if suspend is not None:
        running = f"{suspend} != true and {running}"
    starting = mappings.get(GenericStatus.INITIALIZING, [])
    if starting:
        mappings[GenericStatus.INITIALIZING] = [
            by_expression(f"{matcher_jq(m, *signals)} and (({rollout.test}) | not)")
            for m in starting
        ]
    mappings.setdefault(GenericStatus.RUNNING, []).append(by_expression(running))
