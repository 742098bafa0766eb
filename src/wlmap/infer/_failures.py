"""Failure counts: Degraded while pods of a role have failed and the workload has not ended.

Controllers of multi-role workloads report per role how many pods or Jobs are active,
succeeded and failed (a ``replicaStatuses`` map, a ``replicatedJobsStatus`` list). A
failed count above zero while no outcome is reported means the workload runs on under
its restart or failure policy: Degraded, beside whatever else holds. Found by shape (an
object of role counts: an integer ``failed`` beside ``active``, ``ready`` or
``succeeded``), offered as a guess. Others keep the state of each member pod by name (a
map of plain strings said to be states: Spark's ``executorState``); one member in a
failed state (by the vocabulary) while the workload runs on is Degraded the same way,
and so is the apps/v1 ``ReplicaFailure`` condition where the phase speaks for the rest.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from wlmap.definitions.status import GenericStatus
from wlmap.infer._evidence import Evidence, Strength
from wlmap.infer._schema import ITEMS, VALUES, Node, is_integer, jq_path, show, walk
from wlmap.infer._vocabulary import REPLICA_FAILURE, VOCABULARY, words

_BESIDE = ("active", "ready", "succeeded")
_STATE_WORDS = frozenset({"state", "states", "phase", "phases"})


@dataclass(frozen=True)
class Failures:
    """jq that holds when a role reports failures, and the evidence for it."""

    test: str
    evidence: Evidence

    @classmethod
    def guess(cls, test: str, choice: str, source: str, reason: str) -> Failures:
        """A Degraded guess: ``test``, and why (``choice`` read at ``source``)."""
        return cls(test, Evidence("degraded", choice, source, reason, Strength.GUESS))


def find_failures(status: Node) -> Failures | None:
    """The first list or map of role counts under ``status`` with a ``failed`` count."""
    for node in walk(status):
        if len(node.path) > 4 or node.path[-1] not in (ITEMS, VALUES):
            continue
        if is_integer(node.child("failed")) and any(is_integer(node.child(n)) for n in _BESIDE):
            collection = jq_path(node.path[:-1], optional=False)
            return Failures.guess(
                f"any({collection}[]?; (.failed // 0) > 0)",
                f"failed > 0 in {show(node.path)}",
                show(node.path),
                "per-role counts of active/succeeded/failed; a failure before the "
                "workload ended is a restart under its policy",
            )
    return _member_states(status)


def _member_states(status: Node) -> Failures | None:
    """The first map under ``status`` of plain strings that its name or its values'
    description says are states (not timestamps: a ``format`` says what else a string
    is). The map's own description is not enough: a free-form map (Knative's status
    annotations) may say it keeps "some additional state"."""
    for node in walk(status):
        values = node.values
        if len(node.path) > 3 or values is None or values.type != "string":
            continue
        if values.schema.get("format"):
            continue
        said = words(f"{node.path[-1]} {values.description}")
        if not _STATE_WORDS.intersection(said):
            continue
        failed = "|".join(sorted(VOCABULARY[GenericStatus.FAILED]))
        collection = jq_path(node.path, optional=False)
        return Failures.guess(
            f'any({collection}[]?; type == "string" and (ascii_downcase | test("^({failed})$")))',
            f"a failed value in {show(node.path)}",
            show(values.path),
            "states of members by name; a member failed before the workload ended is "
            "lost or replaced while the others run on",
        )
    return None


def replica_failure(conditions: Node) -> Failures:
    """The apps/v1 ``ReplicaFailure`` condition among ``conditions``: pods the controller
    could not create or delete, and keeps trying to (Deployment, ReplicaSet, and the
    controllers that copy them, KubeRay's RayCluster)."""
    path = jq_path(conditions.path, optional=False)
    return Failures.guess(
        f'any({path}[]?; .type == "{REPLICA_FAILURE}" and .status == "True")',
        f"{REPLICA_FAILURE} True in {show(conditions.path)}",
        show(conditions.path),
        "the apps/v1 condition for pods that could not be created or deleted; read "
        "beside the phase, which speaks for the other states",
    )


def matcher_jq(matcher: Mapping[str, Any], phase_path: str | None, conditions: str | None) -> str:
    """One status matcher of the draft as a jq test, to exclude it from another."""
    if "byExpression" in matcher:
        return f"({matcher['byExpression']['expression']})"
    if "byPhase" in matcher and phase_path is not None:
        return f'{phase_path} == "{matcher["byPhase"]}"'
    tests = [
        f'any({conditions}[]?; .type == "{c["type"]}" and .status == "{c["status"]}")'
        for c in matcher.get("byConditions") or ()
    ]
    return "(" + " and ".join(tests) + ")" if tests else "false"


def degraded_matcher(
    failures: Failures, ended: Sequence[str], suspend: str | None
) -> dict[str, Any]:
    """Degraded while a role reports failures, the workload has not ended, and (with a
    suspend field) no suspension is asked."""
    test = failures.test
    if ended:
        test += f" and (({' or '.join(ended)}) | not)"
    if suspend is not None:
        test = f"{suspend} != true and {test}"
    return {"byExpression": {"expression": test, "expectedResult": "true"}}
