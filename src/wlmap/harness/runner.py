"""Running cases against their definitions and collecting every mismatch."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from wlmap.definitions.registry import Registry
from wlmap.errors import WlmapError
from wlmap.harness.cases import Case
from wlmap.harness.compare import Mismatch, compare
from wlmap.workload import PodChanges, interpret, patch_pods, suspend_patch

_CHANGE_FIELDS = {
    "schedulerName": "scheduler_name",
    "priorityClassName": "priority_class_name",
    "labels": "labels",
    "annotations": "annotations",
    "nodeSelector": "node_selector",
    "tolerations": "tolerations",
    "schedulingGates": "scheduling_gates",
    "resourceClaims": "resource_claims",
    "affinity": "affinity",
}


@dataclass(frozen=True)
class CaseResult:
    """The outcome of one case."""

    case: Case
    mismatches: tuple[Mismatch, ...]

    @property
    def passed(self) -> bool:
        """No mismatch."""
        return not self.mismatches


def run_cases(cases: Iterable[Case], registry: Registry) -> list[CaseResult]:
    """Run every case; a case never stops the others."""
    return [run_case(case, registry) for case in cases]


def run_case(case: Case, registry: Registry) -> CaseResult:
    """Interpret the case's object with its definition and compare with the expectations."""
    entry = next((e for e in registry if e.definition.name == case.definition), None)
    if entry is None:
        return CaseResult(
            case, (Mismatch("definition", f"no definition named {case.definition!r}"),)
        )
    definition = entry.definition
    found: list[Mismatch] = []
    try:
        view = interpret(
            definition,
            case.obj,
            pods=case.pods,
            claims=case.claims,
            references=case.references,
            variables=case.variables,
        ).to_dict()
    except WlmapError as exc:
        return CaseResult(case, (Mismatch("", f"interpretation failed: {exc}"),))
    found.extend(compare(case.expect, view))
    for index, patch in enumerate(case.patches):
        found.extend(_check_patch(definition, case, index, patch))
    for label, spec, resume in (("suspend", case.suspend, False), ("resume", case.resume, True)):
        if spec is not None:
            try:
                result = suspend_patch(definition, case.obj, resume=resume)
                actual = {"jsonPatch": result.json_patch, "mergePatch": result.merge_patch}
                found.extend(compare(spec, actual, label))
            except WlmapError as exc:
                found.append(Mismatch(label, f"failed: {exc}"))
    return CaseResult(case, tuple(found))


def _check_patch(
    definition: Any, case: Case, index: int, spec: Mapping[str, Any]
) -> list[Mismatch]:
    where = f"patches[{index}]"
    changes = spec.get("changes") or {}
    unknown = sorted(set(changes) - set(_CHANGE_FIELDS))
    if unknown:
        return [
            Mismatch(
                f"{where}.changes", f"unknown fields {unknown}; known: {sorted(_CHANGE_FIELDS)}"
            )
        ]
    kwargs = {_CHANGE_FIELDS[k]: v for k, v in changes.items()}
    try:
        result = patch_pods(
            definition,
            case.obj,
            str(spec.get("component")),
            PodChanges(**kwargs),
            instance=spec.get("instance"),
        )
    except WlmapError as exc:
        if "error" in spec:
            return (
                []
                if str(spec["error"]) in str(exc)
                else [
                    Mismatch(
                        f"{where}.error",
                        f"expected an error containing {spec['error']!r}, got {exc}",
                    )
                ]
            )
        return [Mismatch(where, f"failed: {exc}")]
    if "error" in spec:
        return [
            Mismatch(
                f"{where}.error", f"expected an error containing {spec['error']!r}, got a patch"
            )
        ]
    actual = {"jsonPatch": result.json_patch, "mergePatch": result.merge_patch}
    expected = {k: v for k, v in spec.items() if k in ("jsonPatch", "mergePatch")}
    return compare(expected, actual, where)
