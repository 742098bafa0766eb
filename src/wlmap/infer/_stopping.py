"""A stop asked and not yet done: Suspending while a reason says so under a Suspended phase.

Some controllers write the outcome of a stop in the phase at once (``Stopped`` as soon
as every replica count is 0) and say in a condition's ``reason`` that the pods are
still going (``MilvusStopping``, then ``MilvusStopped``); this applies where the draft
reads the phase rather than the conditions. A reason holding a Suspending word
(stopping, pausing, suspending, aborting) is that transition: while it is there the
workload is Suspending rather than Suspended. A condition named after the transition
(``RayClusterSuspending``, False for the reason ``RayClusterSuspending``) speaks by its
status, not its reason, so its reason is not read. A guess, read from the conditions'
reasons whether or not the draft maps their types.
"""

from __future__ import annotations

from typing import Any

from wlmap.definitions.status import GenericStatus
from wlmap.infer._evidence import Evidence, Strength
from wlmap.infer._failures import matcher_jq
from wlmap.infer._phase import by_expression
from wlmap.infer._schema import Node, jq_path, show
from wlmap.infer._vocabulary import VOCABULARY

_WORDS = "|".join(sorted(VOCABULARY[GenericStatus.SUSPENDING]))


def stopping_matchers(
    conditions: Node,
    mappings: dict[GenericStatus, list[dict[str, Any]]],
    phase_path: str | None,
    conditions_path: str | None,
) -> Evidence | None:
    """Split the Suspended matchers of ``mappings`` by the reasons of ``conditions``
    (a list whose items have a ``reason``); None when there is nothing to split."""
    item = conditions.items
    suspended = mappings.get(GenericStatus.SUSPENDED)
    if item is None or item.child("reason") is None or not suspended:
        return None
    path = jq_path(conditions.path, optional=False)
    words = f'test("{_WORDS}"; "i")'
    going = f'any({path}[]?; (.reason // "" | {words}) and (.type // "" | {words} | not))'
    held = " or ".join(matcher_jq(m, phase_path, conditions_path) for m in suspended)
    mappings[GenericStatus.SUSPENDED] = [by_expression(f"({held}) and ({going} | not)")]
    mappings.setdefault(GenericStatus.SUSPENDING, []).append(by_expression(f"({held}) and {going}"))
    return Evidence(
        "suspending",
        f"a Suspended state while a reason holds {_WORDS.replace('|', ', ')}",
        show((*conditions.path, "reason")),
        "a condition's reason says the stop is still under way",
        Strength.GUESS,
    )
