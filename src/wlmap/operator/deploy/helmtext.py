"""Helm template text from the objects the bundle is generated from: YAML dumped by the
same code, with marked places replaced by template directives, and rule lists whose rules
are kept under the conditions (target, placement) in which the generator grants them.

A marker is a string ``@@name@@`` standing as a value, a list item or a mapping key in the
dumped object; ``expand`` replaces the whole line holding it by a block of template text at
that line's indentation (a value keeps its key: ``key: '@@name@@'`` becomes ``key:`` and
the block below it), and the release namespace replaces the bundle's.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import yaml

from wlmap.operator.deploy.rbac import NAMESPACE

RELEASE_NAMESPACE = "{{ $.Release.Namespace }}"
_MARKER = re.compile(r"@@([a-z-]+)@@")

Variant = tuple[str, bool]  # (target, placement)


def marker(name: str) -> str:
    """The marker string of a block named ``name``."""
    return f"@@{name}@@"


def dump(document: Any) -> str:
    """One YAML document, as the bundle dumps it, on unwrapped lines."""
    return yaml.safe_dump(document, sort_keys=False, width=10_000)


Block = str | Callable[[int], str]  # text, or text made for the indentation it lands at


def expand(text: str, blocks: Mapping[str, Block]) -> str:
    """``text`` with each line holding a marker replaced by its block (indented as that
    line; a ``key: marker`` line keeps ``key:``) and the bundle's namespace by the
    release's.

    Raises:
        KeyError: a marker without a block.
    """
    lines = []
    for line in text.splitlines():
        found = _MARKER.search(line)
        if found is None:
            lines.append(line)
            continue
        indent = len(line) - len(line.lstrip(" "))  # a list item's dash, or a key
        head = line[: found.start()].rstrip(" '\"")
        if head.strip(" -") and head.endswith(":"):  # a value: keep its key
            lines.append(head)
            indent += 2
        block = blocks[found.group(1)]
        made = block(indent) if callable(block) else block
        lines.extend((" " * indent + b) if b.strip() else b for b in made.splitlines())
    return "\n".join(lines).replace(NAMESPACE, RELEASE_NAMESPACE) + "\n"


def conditional_rules(
    rules_of: Callable[[str, bool], Sequence[dict[str, Any]]], targets: Sequence[str]
) -> str:
    """The YAML list of every rule ``rules_of(target, placement)`` grants for some
    variant, each under the template condition of the variants that grant it, in the
    generator's order (by API group and verbs) for every variant."""
    variants = [(t, p) for t in targets for p in (False, True)]
    granted: dict[str, set[Variant]] = {}
    for variant in variants:
        for granting in rules_of(*variant):
            granted.setdefault(json.dumps(granting), set()).add(variant)

    def order(rule: str) -> tuple[str, tuple[str, ...], tuple[str, ...]]:
        loaded = json.loads(rule)
        return (loaded["apiGroups"][0], tuple(loaded["verbs"]), tuple(loaded["resources"]))

    out: list[str] = []
    open_condition: str | None = None
    for rule in sorted(granted, key=order):
        condition = _condition(granted[rule], targets)
        if condition != open_condition:
            if open_condition:
                out.append("{{- end }}")
            if condition:
                out.append(f"{{{{- if {condition} }}}}")
            open_condition = condition
        out.append(dump([json.loads(rule)]).rstrip())
    if open_condition:
        out.append("{{- end }}")
    return "\n".join(out)


def _condition(granted: set[Variant], targets: Sequence[str]) -> str:
    """The template condition true for exactly the ``granted`` variants ("" for all)."""
    by_placement: dict[frozenset[bool], list[str]] = {}
    for target in targets:
        placements = frozenset(p for t, p in granted if t == target)
        if placements:
            by_placement.setdefault(placements, []).append(target)
    clauses = [_clause(names, placements, targets) for placements, names in by_placement.items()]
    if len(clauses) == 1:
        return clauses[0]
    return "or " + " ".join(f"({c or 'true'})" for c in clauses)


def _clause(names: Iterable[str], placements: frozenset[bool], targets: Sequence[str]) -> str:
    names = sorted(names)
    parts = []
    if len(names) == 1:
        parts.append(f'eq .Values.target "{names[0]}"')
    elif set(names) != set(targets):
        parts.append(f"has .Values.target (list {' '.join(json.dumps(n) for n in names)})")
    if placements == {True}:
        parts.append(".Values.placement.enabled")
    elif placements == {False}:
        parts.append("not .Values.placement.enabled")
    if len(parts) > 1:
        return "and " + " ".join(f"({p})" for p in parts)
    return parts[0] if parts else ""
