"""A failure under way: a ``failing`` phase, read through the workload's restart policy.

Controllers that restart a whole workload name the moment between a failure and their
decision ``FAILING`` (Spark's application state; Flink's job status): next comes a
rerun when the restart policy allows one, else the final failure. Where the spec holds
a restart policy of its own (``.spec.restartPolicy``, a string or an object with a
string ``type``, whose enum offers ``Never`` beside retrying values), a failing phase is
Degraded while the policy is not ``Never`` (unset is ``Never``: retrying is opted into)
and Failed under ``Never``; without one, a listed failing value is Failed. Guesses: a
policy may also cap the retries, which only the controller counts.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from wlmap.definitions.status import GenericStatus
from wlmap.infer._evidence import Evidence, Strength
from wlmap.infer._schema import Node, jq_path, show
from wlmap.infer._vocabulary import words

FAILING = frozenset({"failing"})


@dataclass(frozen=True)
class Failing:
    """jq per state for a failing phase, and the evidence for each."""

    tests: dict[GenericStatus, str]
    evidence: list[Evidence]


def _policy(spec: Node | None) -> tuple[Node, str] | None:
    """The spec's own restart policy field and its value that never restarts."""
    node = spec.child("restartPolicy") if spec is not None else None
    if node is not None and node.type == "object":
        node = node.child("type")
    if node is None or node.type != "string":
        return None
    enum = [str(v) for v in node.schema.get("enum") or ()]
    never = next((v for v in enum if v.lower() == "never"), None)
    return (node, never) if never is not None and len(enum) > 1 else None


def failing_phase(
    phase_path: str, values: Sequence[str], spec: Node | None, suspend: str | None
) -> Failing | None:
    """Matchers for the failing values among ``values`` (every spelling of ``failing``
    when none are listed), or None when the phase lists values and none is failing, or
    lists none and the spec has no restart policy."""
    listed = [v for v in values if "".join(words(v)) in FAILING]
    if values and not listed:
        return None
    if listed:
        held = "(" + " or ".join(f'{phase_path} == "{v}"' for v in listed) + ")"
    else:
        held = f'({phase_path} // "" | ascii_downcase | test("^({"|".join(sorted(FAILING))})$"))'
    subjects = [f"phase {v}" for v in listed] or ["phase failing"]
    policy = _policy(spec)
    if policy is None and not listed:
        return None  # nothing says the phase has such a value or what follows it
    if policy is None:
        reason = "a failure under way, and the spec has no restart policy to retry it"
        return Failing(
            {GenericStatus.FAILED: held},
            [Evidence(s, "Failed", phase_path, reason, Strength.GUESS) for s in subjects],
        )
    node, never = policy
    retries = f'(({jq_path(node.path, optional=False)} // "{never}") != "{never}")'
    degraded = f"{held} and {retries}"
    if suspend is not None:
        degraded = f"{suspend} != true and {degraded}"
    where = show(node.path)
    reason = f"a failure under way; the restart policy {where} reruns it unless {never}"
    return Failing(
        {GenericStatus.DEGRADED: degraded, GenericStatus.FAILED: f"{held} and ({retries} | not)"},
        [
            Evidence(
                s, f"Degraded, Failed if {where} is {never}", phase_path, reason, Strength.GUESS
            )
            for s in subjects
        ],
    )
