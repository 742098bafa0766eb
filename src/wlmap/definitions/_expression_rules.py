"""Validation rules about jq expressions: they parse, are safe, compile, writes are paths,
and (warnings) their cost grows no faster than their input."""

from __future__ import annotations

from collections.abc import Iterator
from functools import lru_cache
from typing import Literal

from wlmap import jq
from wlmap.definitions.document import Definition
from wlmap.definitions.expressions import Role, expression_sites
from wlmap.errors import ExpressionError, Problem

Severity = Literal["error", "warning"]


def expression_problems(definition: Definition) -> Iterator[Problem]:
    """Every problem of every jq expression in the definition."""
    declared = {r.name for r in definition.spec.structure_definition.references}
    for site in expression_sites(definition):
        problems = _site_problems(site.text, site.role)
        for message, severity in problems:
            yield Problem(definition.name, site.path, message, site.component, severity)
        if not problems and site.role is not Role.POD:
            unknown = sorted(set(_variables(site.text)) - declared)
            if unknown:
                yield Problem(
                    definition.name,
                    site.path,
                    f"uses ${', $'.join(unknown)}, which no entry of "
                    "structureDefinition.references declares",
                    site.component,
                )


@lru_cache(maxsize=4096)
def _site_problems(text: str, role: Role) -> tuple[tuple[str, Severity], ...]:
    # Cached by text and role: catalogs repeat the same expressions across definitions.
    return tuple(_check(text, role))


def _check(text: str, role: Role) -> Iterator[tuple[str, Severity]]:
    if not text.strip():
        yield "expression must not be empty", "error"
        return
    try:
        node = jq.parse(text)
    except ExpressionError as exc:
        yield f"jq syntax error: {exc.reason}", "error"
        return
    unsafe = jq.unsafe_constructs(node)
    for message in unsafe:
        yield f"unsafe jq rejected: {message}", "error"
    if unsafe:
        return
    try:
        _compile(text)
    except ExpressionError as exc:
        yield f"jq does not compile it: {exc.reason}", "error"
        return
    for message in jq.costly_constructs(node):
        yield f"super-linear cost, may exceed the evaluation limits: {message}", "warning"
    if role in (Role.SPEC_WRITE, Role.SUSPEND_WRITE):
        path_issues = jq.path_problems(node)
        if path_issues and role is Role.SUSPEND_WRITE:
            yield f"must be an assignable jq path: {'; '.join(path_issues)}", "error"
        elif path_issues:
            yield (
                "read-only projection: write-back to this field will be refused "
                f"({'; '.join(path_issues)})",
                "warning",
            )


def _compile(text: str) -> jq.Program:
    return jq.default_engine().compile(text)


def _variables(text: str) -> tuple[str, ...]:
    return _compile(text).variables
