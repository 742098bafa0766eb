"""The ``Ready`` condition beyond True: not yet settled, or False for a reason that names
an outcome.

Controllers that summarise a workload in one ``Ready`` condition (the Knative and KServe
duck type, Sandbox) say more than True: ``Unknown`` is a condition not yet settled (the
API conventions' meaning), ``False`` for a reason such as ``PodSucceeded`` or
``RevisionFailed`` is the outcome, and ``False`` for any other reason is a workload not
ready yet. A reason that names a suspension (``SuspendComplete``, ``Paused``) says why the
workload is down, not how it ended: no outcome. All three are guesses for review.
"""

from __future__ import annotations

from typing import Any

from wlmap.definitions.status import GenericStatus
from wlmap.infer._evidence import Evidence, Strength
from wlmap.infer._phase import by_expression
from wlmap.infer._schema import Node, jq_path
from wlmap.infer._vocabulary import PRECEDENCE, VOCABULARY, words

_FAILED = "|".join(sorted(VOCABULARY[GenericStatus.FAILED]))
_COMPLETED = "|".join(sorted(VOCABULARY[GenericStatus.COMPLETED]))
# The stems of the suspend states' words (suspend, pause, hibernate, stop, abort, resume).
_SUSPENSION = "suspend|paus|hibernat|stop|abort|resum"


def _ready_false(path: str, reason: str) -> str:
    return f'any({path}[]?; .type == "Ready" and .status == "False" and ({reason}))'


def _outcome(words: str) -> str:
    """A reason with one of ``words`` and no word of a suspension."""
    return f'{_reason(words)} and (test("{_SUSPENSION}"; "i") | not)'


def _reason(words: str) -> str:
    return f'.reason // "" | test("{words}"; "i")'


def ready_matchers(
    path: str, by_state: dict[GenericStatus, list[str]], suspend: str | None, reasons: bool
) -> list[tuple[GenericStatus, dict[str, Any], Evidence]]:
    """Failed, Completed and Initializing matchers from the ``Ready`` condition at
    ``path``; the states mapped from other types (``by_state``) rank above Initializing.
    Without a ``reason`` field (``reasons`` false) only Unknown is read."""
    if not reasons:
        starting = f'any({path}[]?; .type == "Ready" and .status == "Unknown")'
        return [
            (
                GenericStatus.INITIALIZING,
                by_expression(_guarded(starting, path, by_state, suspend)),
                _evidence(GenericStatus.INITIALIZING, path, "Unknown: not yet settled"),
            )
        ]
    failed = _ready_false(path, _outcome(_FAILED))
    completed = f"{_ready_false(path, _outcome(_COMPLETED))} and ({failed} | not)"
    starting = (
        f'any({path}[]?; .type == "Ready" and (.status == "Unknown" or (.status == "False"'
        f" and ({_outcome(f'{_FAILED}|{_COMPLETED}')} | not))))"
    )
    starting = _guarded(f"{starting} and ({failed} | not)", path, by_state, suspend)
    return [
        (
            GenericStatus.FAILED,
            by_expression(failed),
            _evidence(
                GenericStatus.FAILED,
                path,
                "False for a reason with a Failed word, none of a suspension",
            ),
        ),
        (
            GenericStatus.COMPLETED,
            by_expression(completed),
            _evidence(
                GenericStatus.COMPLETED,
                path,
                "False for a reason with a Completed word, none of a suspension",
            ),
        ),
        (
            GenericStatus.INITIALIZING,
            by_expression(starting),
            _evidence(
                GenericStatus.INITIALIZING,
                path,
                "Unknown (not yet settled), or False for a reason naming no outcome",
            ),
        ),
    ]


def find_last_ready(status: Node | None) -> Node | None:
    """A string at ``.status`` named ``latestReady...`` (Knative's
    ``latestReadyRevisionName``): the last version of the workload that became ready."""
    for node in status.children() if status is not None else ():
        if node.type == "string" and words(node.path[-1])[:2] == ["latest", "ready"]:
            return node
    return None


def serving_matchers(
    found: list[tuple[GenericStatus, dict[str, Any], Evidence]],
    last_ready: Node,
    path: str,
    by_state: dict[GenericStatus, list[str]],
    suspend: str | None,
) -> list[tuple[GenericStatus, dict[str, Any], Evidence]]:
    """The Ready matchers once a version has been ready: while ``last_ready`` names one,
    a Ready that is not True is a newer version rolling out while that one serves
    (Running), or one that failed (Running and Degraded), not a workload starting or
    failed."""
    serving = jq_path(last_ready.path, optional=False)
    out: list[tuple[GenericStatus, dict[str, Any], Evidence]] = []
    for state, matcher, evidence in found:
        test = matcher["byExpression"]["expression"]
        if state in (GenericStatus.FAILED, GenericStatus.INITIALIZING):
            out.append((state, by_expression(f"{serving} == null and {test}"), evidence))
            if state is GenericStatus.FAILED:
                newer = f"{serving} != null and {test}"
                if suspend is not None:
                    newer = f"{suspend} != true and {newer}"
                out.append((GenericStatus.DEGRADED, by_expression(newer), _serving(path, "failed")))
        else:
            out.append((state, matcher, evidence))
    rolling = f'{serving} != null and any({path}[]?; .type == "Ready" and .status != "True")'
    running = by_expression(_guarded(rolling, path, by_state, suspend))
    out.append((GenericStatus.RUNNING, running, _serving(path, "rolling out or failed")))
    return out


def _serving(path: str, newer: str) -> Evidence:
    return Evidence(
        f"condition Ready: {newer}",
        "Degraded" if newer == "failed" else "Running",
        path,
        "Ready not True while the status names the last version that became ready: "
        f"a newer version {newer}, the last ready one serves",
        Strength.GUESS,
    )


def _guarded(
    test: str, path: str, by_state: dict[GenericStatus, list[str]], suspend: str | None
) -> str:
    """``test`` while no condition of a state above Running holds and no suspend is asked."""
    higher = [
        t
        for state in PRECEDENCE[: PRECEDENCE.index(GenericStatus.RUNNING)]
        for t in by_state.get(state, ())
    ]
    if higher:
        listed = " or ".join(f'.type == "{t}"' for t in higher)
        test += f' and (any({path}[]?; ({listed}) and .status == "True") | not)'
    return f"{suspend} != true and {test}" if suspend is not None else test


def _evidence(state: GenericStatus, path: str, reason: str) -> Evidence:
    return Evidence(f"condition Ready: {state.value}", state.value, path, reason, Strength.GUESS)
