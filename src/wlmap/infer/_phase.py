"""Phases: the string field under ``.status`` that names the object's state, and its matchers.

A phase field is found by name (``phase``, ``state``, ``...Status``) or by values the
vocabulary maps. Its values come from the schema's enum and the samples; with none
listed, the vocabulary's words are matched directly. With a suspend field, the suspend
states follow the request and the phase's answer to it, as they do for conditions.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from wlmap.definitions.status import GenericStatus
from wlmap.infer._evidence import Evidence, Strength, unmapped
from wlmap.infer._samples import values_at
from wlmap.infer._schema import ITEMS, Node, jq_path, show, walk
from wlmap.infer._vocabulary import PRECEDENCE, VOCABULARY, classify

_PHASE_NAME = re.compile(r"^(phase|state|status)$|(Phase|State|Status)$")
_ACTIVE = (GenericStatus.RUNNING, GenericStatus.INITIALIZING, GenericStatus.DEGRADED)
_ENDED = (GenericStatus.FAILED, GenericStatus.COMPLETED)

Mappings = dict[GenericStatus, list[dict[str, Any]]]


def by_expression(expression: str) -> dict[str, Any]:
    """A matcher that holds when ``expression`` is true."""
    return {"byExpression": {"expression": expression, "expectedResult": "true"}}


def find_phase(status: Node, samples: Sequence[Mapping[str, Any]]) -> tuple[Node, list[str]] | None:
    """The best phase field under ``status`` and its known values, or None."""
    best: tuple[int, Node, list[str]] | None = None
    for node in walk(status):
        if len(node.path) > 4 or ITEMS in node.path or "{}" in node.path or node.type != "string":
            continue
        enum = [str(v) for v in node.schema.get("enum") or ()]
        seen = [str(v) for s in samples for v in values_at(s, node.path) if isinstance(v, str)]
        values = list(dict.fromkeys([*enum, *seen]))
        named = bool(_PHASE_NAME.search(node.path[-1]))
        mapped = sum(classify(v) is not None for v in values)
        if not named and mapped < 2:
            continue
        score = mapped * 2 + (3 if named else 0) - len(node.path)
        if best is None or score > best[0]:
            best = (score, node, values)
    return (best[1], best[2]) if best is not None else None


def plan_phase(
    node: Node, values: Sequence[str], suspend: str | None
) -> tuple[str, Mappings, list[Evidence]]:
    """The phase path, one matcher list per state and the evidence for each value."""
    path = jq_path(node.path, optional=False)
    evidence: list[Evidence] = []
    by_state: dict[GenericStatus, list[str]] = {}
    for value in values:
        found = classify(value)
        if found is None:
            evidence.append(unmapped(f"phase {value}", show(node.path)))
            continue
        state, is_exact = found
        by_state.setdefault(state, []).append(value)
        strength = Strength.VOCABULARY if is_exact else Strength.GUESS
        evidence.append(
            Evidence(
                f"phase {value}",
                state.value,
                show(node.path),
                "enum or samples; vocabulary",
                strength,
            )
        )
    if not values:
        # A phase field whose values nobody lists: match the vocabulary words themselves.
        evidence.append(
            Evidence(
                "phase values",
                "vocabulary words",
                show(node.path),
                "neither an enum nor samples list the values",
                Strength.GUESS,
            )
        )
    if suspend is None:
        if values:
            mappings: Mappings = {s: [{"byPhase": v} for v in vs] for s, vs in by_state.items()}
        else:
            mappings = {s: [by_expression(_holds(path, s, None))] for s in PRECEDENCE}
        return path, mappings, evidence
    return path, _with_suspend(path, by_state if values else None, suspend), evidence


def _holds(path: str, state: GenericStatus, listed: Sequence[str] | None) -> str:
    """jq that is true when the phase is one of the state's values (or vocabulary words)."""
    if listed is None:
        words = "|".join(sorted(VOCABULARY[state]))
        return f'({path} // "" | ascii_downcase | test("^({words})$"))'
    return "(" + " or ".join(f'{path} == "{v}"' for v in listed) + ")"


def _with_suspend(
    path: str, by_state: Mapping[GenericStatus, list[str]] | None, suspend: str
) -> Mappings:
    """Matchers that read the suspend request beside the phase.

    Suspended needs the request and a suspended phase; suspending is the request before
    the phase shows it (and before the workload ended); resuming is a suspended phase
    without the request; the active states need the request off.
    """

    def held(state: GenericStatus) -> str | None:
        if by_state is None:
            return _holds(path, state, None)
        listed = by_state.get(state)
        return _holds(path, state, listed) if listed else None

    out: Mappings = {}
    ended = [h for s in _ENDED if (h := held(s)) is not None]
    for state in PRECEDENCE:
        test = held(state)
        if state is GenericStatus.SUSPENDED and test is not None:
            out[state] = [by_expression(f"{suspend} == true and {test}")]
            stop = " or ".join([test, *ended])
            out.setdefault(GenericStatus.SUSPENDING, []).append(
                by_expression(f"{suspend} == true and (({stop}) | not)")
            )
            out.setdefault(GenericStatus.RESUMING, []).append(
                by_expression(f"{suspend} != true and {test}")
            )
        elif test is not None:
            active = state in _ACTIVE
            out.setdefault(state, []).append(
                by_expression(f"{suspend} != true and {test}" if active else test)
            )
    return out


def unset_phase(path: str, suspend: str | None) -> tuple[dict[str, Any], Evidence]:
    """Initializing while the status is written but the phase is not yet: the controller
    has seen the object and not named its state (RayCluster's empty ``state`` while its
    pods are provisioned). For phases with no listed value naming the start."""
    test = f'((.status // {{}}) | length) > 0 and ({path} // "") == ""'
    if suspend is not None:
        test = f"{suspend} != true and {test}"
    return by_expression(test), Evidence(
        "phase unset",
        GenericStatus.INITIALIZING.value,
        path,
        "a status is written and the phase is empty: not yet named by the controller",
        Strength.GUESS,
    )
