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
from wlmap.infer._vocabulary import PRECEDENCE, VOCABULARY

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
