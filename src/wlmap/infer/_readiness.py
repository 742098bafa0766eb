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
from wlmap.infer._evidence import Evidence, Strength
from wlmap.infer._schema import Node, jq_path, show

_READY = ("availableReplicas", "readyReplicas")


@dataclass(frozen=True)
class Readiness:
    """Where the ready count and the wanted count are, as jq."""

    ready: str
    wanted: str
    evidence: Evidence


def _integer(node: Node | None) -> bool:
    return node is not None and node.type == "integer"


def find_readiness(status: Node, spec: Node | None) -> Readiness | None:
    """The ready and wanted counts of ``status`` (wanted from the status, else the spec)."""
    ready = next((n for name in _READY if _integer(n := status.child(name))), None)
    if ready is None:
        return None
    wanted = status.child("replicas")
    if not _integer(wanted) and spec is not None:
        wanted = spec.child("replicas")
    if wanted is None or not _integer(wanted):
        return None
    ready_path = jq_path(ready.path, optional=False)
    wanted_path = jq_path(wanted.path, optional=False)
    return Readiness(
        f"({ready_path} // 0)",
        f"({wanted_path} // 0)",
        Evidence(
            "running/initializing",
            f"{ready.path[-1]} of {show(wanted.path)}",
            show(ready.path),
            "apps/v1 status counts; used while no mapped condition or phase holds",
            Strength.GUESS,
        ),
    )


def readiness_matchers(
    readiness: Readiness, others: Sequence[str], suspend: str | None
) -> dict[GenericStatus, str]:
    """jq per state: all wanted ready is Running, fewer is Initializing.

    ``others`` are jq tests of the signals already mapped; the counts apply only where
    none of them holds.
    """
    guard = ""
    if others:
        guard += f" and (({' or '.join(others)}) | not)"
    if suspend is not None:
        guard += f" and {suspend} != true"
    ready, wanted = readiness.ready, readiness.wanted
    return {
        GenericStatus.RUNNING: f"{wanted} > 0 and {ready} >= {wanted}{guard}",
        GenericStatus.INITIALIZING: f"{ready} < {wanted}{guard}",
    }
