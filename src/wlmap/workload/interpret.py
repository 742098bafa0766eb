"""Applying a definition to a workload object (and optionally its pods): the one entry point."""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from typing import Any

from wlmap.definitions import Definition
from wlmap.workload._components import component_views
from wlmap.workload._issues import Issues
from wlmap.workload._ordinary_view import ordinary_view
from wlmap.workload.compiled import CompiledDefinition, prepare
from wlmap.workload.gangs import GangGroup, gang_groups
from wlmap.workload.pods import attribute_pods
from wlmap.workload.references import bind_references
from wlmap.workload.status import evaluate_status
from wlmap.workload.structure import extract_instances
from wlmap.workload.suspend import suspend_reader
from wlmap.workload.view import WorkloadView, object_names


def interpret(
    definition: Definition | CompiledDefinition,
    obj: Mapping[str, Any],
    *,
    pods: Sequence[Mapping[str, Any]] | None = None,
    claims: Mapping[str, Mapping[str, Any]] | None = None,
    references: Mapping[str, Any] | None = None,
    variables: Mapping[str, Any] | None = None,
    strict: bool = False,
) -> WorkloadView:
    """Build the view of one workload object under its definition.

    Args:
        definition: the definition (or its compiled form, for repeated use).
        obj: the workload object as a plain dict.
        pods: the workload's pods, when known: they are attributed to components and
            split into gangs.
        claims: DRA ResourceClaims and ResourceClaimTemplates by name, for GPU counts.
        references: the objects the definition's ``references`` name, by reference name
            (see :func:`reference_requests`); a missing one reads as ``null`` and is listed
            in ``missing_references``.
        variables: values of ``$name`` variables the definition's expressions use.
        strict: raise the first error instead of recording it in ``warnings``.

    Raises:
        ExpressionError, WorkloadShapeError: only in strict mode.
    """
    compiled = prepare(definition)
    if pods is None and claims is None and references is None and variables is None:
        # the ordinary path's code is generated on its first use (a few ms): a definition
        # read once, as a one-shot command does, keeps the general path
        if compiled.memo.get("interpreted"):
            view = ordinary_view(compiled, obj, strict)
            if view is not None:
                return view
        else:
            compiled.memo["interpreted"] = True
    return general_view(compiled, obj, pods, claims, references, variables, strict)


def general_view(
    compiled: CompiledDefinition,
    obj: Mapping[str, Any],
    pods: Sequence[Mapping[str, Any]] | None,
    claims: Mapping[str, Mapping[str, Any]] | None,
    references: Mapping[str, Any] | None,
    variables: Mapping[str, Any] | None,
    strict: bool,
) -> WorkloadView:
    """The view through the general path, which reads any object and reports each
    problem where it is (:func:`interpret` takes it for whatever is not ordinary)."""
    issues = Issues(strict=strict, share=compiled.shares)
    variables, missing_references = bind_references(compiled, obj, references, variables, issues)
    instances = extract_instances(compiled, obj, issues, variables)
    placements = attribute_pods(compiled, instances, pods, issues) if pods is not None else None
    # what failed so far shapes components, counts and pods, so the gangs too
    gang_errors = list(issues.errors)
    components, totals = component_views(compiled, instances, placements, claims, issues)
    status = evaluate_status(compiled, obj, issues, variables)
    issues.session = None  # what the view works out later must read the object as it is then

    def gangs() -> tuple[GangGroup, ...]:
        start = len(issues.errors)
        found = tuple(gang_groups(compiled, instances, placements, pods, issues, obj, variables))
        gang_errors.extend(issues.errors[start:])
        return found

    def gang_issues() -> tuple[str, ...]:
        # a referenced object the workload names but the caller did not have (a TrainJob's
        # runtime not created yet) holds the templates and counts the gangs are made of
        absent = [
            f"reference ${n} (the object the workload names) is not available"
            for n in missing_references
        ]
        return (*absent, *(str(e) for e in gang_errors))

    def warnings() -> tuple[str, ...]:
        absent = [
            f"reference ${n} was not provided; fields read from it are empty"
            for n in missing_references
        ]
        return (*absent, *issues.messages())

    gangs_reader = gangs
    if strict:  # raise now, not when the view is read
        computed = gangs()
        gangs_reader = functools.partial(tuple, computed)

    missing: tuple[tuple[str, str | None], ...] = ()
    if placements is not None:
        missing = tuple(
            (c.name, c.instance)
            for c in components
            if c.template is not None and c.pods > 0 and not c.pods_observed
        )
    # positional: the record's field order (quicker than keywords)
    return WorkloadView(
        *object_names(obj),
        compiled.name,
        status.phases,
        tuple(components),
        totals,
        sum([c.pods for c in components]),
        gangs_reader,
        status,
        suspend_reader(compiled, obj, status.phases, strict),
        tuple(placements) if placements is not None else None,
        missing,
        missing_references,
        warnings,
        gang_issues,
    )
