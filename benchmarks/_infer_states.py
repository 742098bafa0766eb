"""Which native values a definition maps each state from, for comparing states.

A catalog expression's string literals, whether it reads a suspend field, and the
``.status`` counts it reads; a drafted expression's part before its exclusions. The
benchmark counts a state as mapped the same when the two share one such value.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from _jq_reads import LITERAL as _LITERAL
from _jq_reads import PATH as _PATH

from wlmap.definitions import Definition


def _literals(text: str) -> set[str]:
    # "True"/"False" are a condition's status, not the native value a state is mapped from.
    words = {w.lower() for w in _LITERAL.findall(text)} - {"true", "false"}
    if "suspend" in text and "== true" in text:
        words.add("<suspend field>")
    return words


def _status_reads(text: str) -> set[str]:
    """The ``.status`` fields an expression reads, as words of their own: a state computed
    from counts (``.status.readyReplicas``) is mapped from those fields. Conditions lists
    and phase fields are left out: there the literal compared with them is the value."""
    paths = {p.replace("?", "") for p in _PATH.findall(text) if p.startswith(".status.")}
    return {
        f"<{p}>"
        for p in paths
        if "conditions" not in p and not any(_LITERAL.search(rest) for rest in _after(text, p))
    }


def _after(text: str, path: str) -> list[str]:
    """What follows each read of ``path`` up to the next read: ``== "Running"`` after a
    phase field shows the field is compared with a value."""
    return [part[:40] for part in text.replace("?", "").split(path)[1:]]


def catalog_words(expression: str) -> set[str]:
    """Every string literal of a catalog expression, whether it reads a suspend field,
    and the ``.status`` counts it reads."""
    return _literals(expression) | _status_reads(expression)


def draft_words(expression: str) -> set[str]:
    """The part of a drafted expression that must hold: before the exclusions (``and
    (any(...) | not)``, ``and ((...) | not)``), whose values the state is not mapped
    from; a test() reads its regex alternatives."""
    text = expression.split(" and (any(", maxsplit=1)[0].split(" and ((", maxsplit=1)[0]
    if "test(" in text:
        alternatives = set(re.findall(r"[a-z]+", text.split("test(")[1]))
        return alternatives | (_literals(text) & {"<suspend field>"}) | _status_reads(text)
    return _literals(text) | _status_reads(text)


def state_literals(
    definition: Definition, expression_words: Callable[[str], set[str]]
) -> dict[str, set[str]]:
    """The native values each state is mapped from: byPhase, byConditions types, and the
    words ``expression_words`` reads from a byExpression."""
    status = definition.root.status_definition
    out: dict[str, set[str]] = {}
    if status is None:
        return out
    for state, matchers in status.status_mappings.entries():
        words: set[str] = set()
        for m in matchers:
            if m.by_phase:
                words.add(m.by_phase.lower())
            for c in m.by_conditions or ():
                words.add(c.type.lower())
            if m.by_expression:
                words.update(expression_words(m.by_expression.expression))
        out[state.value] = words
    return out
