"""Start stages: which instances of a component start only after others did.

A JobSet's replicatedJob that ``dependsOn`` another is created once that one is ready or
complete; a TrainJob's trainer step waits for its initializers the same way. Pods of two
such stages never all exist at the start, so one gang over both can never be satisfied
(see docs/decisions/0047-stages-are-separate-gangs.md). The definition says what each
instance waits for (``podGroup.stages``); instances that wait for the same ones start
together and form one stage.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from wlmap.definitions.expressions import STAGES_PATH
from wlmap.errors import ExpressionError, WorkloadShapeError
from wlmap.workload._issues import Issues
from wlmap.workload.compiled import CompiledDefinition

# (instance id waited for, what it waits for: "Ready", "Complete", or None when unsaid)
Wait = tuple[str, str | None]


@dataclass(frozen=True)
class Stage:
    """Instances of the stage component that start together, and what they wait for."""

    ids: tuple[str, ...]
    waits: tuple[Wait, ...]

    def reason(self, component: str) -> str | None:
        """Why this stage is a gang of its own, or None for the stage that starts first."""
        if not self.waits:
            return None
        by_status: dict[str, list[str]] = {}
        for name, status in self.waits:
            by_status.setdefault((status or "").lower(), []).append(name)
        after = "; ".join(
            " ".join((", ".join(names), status)).strip() for status, names in by_status.items()
        )
        verb = "starts" if len(self.ids) == 1 else "start"
        return f"{component} {', '.join(self.ids)} {verb} after {after}"


def read_stages(
    compiled: CompiledDefinition,
    obj: Mapping[str, Any],
    ids: Sequence[str | None],
    variables: Mapping[str, Any] | None,
    issues: Issues,
) -> tuple[Stage, ...] | None:
    """The object's start stages in start order, or None when the definition declares
    none or every instance starts at once (the gang stays whole). ``ids``: the instance
    ids of the stage component (:func:`stage_component`)."""
    group = _stages_of(compiled)
    expr = compiled.expr(STAGES_PATH)
    if group is None or expr is None:
        return None
    named: list[str] = [i for i in ids if i is not None]
    if len(named) < 2:
        return None
    try:
        values = expr.all(obj, variables)
    except ExpressionError as exc:
        issues.report(exc)
        return None
    if len(values) != len(named):
        issues.report(
            WorkloadShapeError(
                f"{compiled.name}: {STAGES_PATH} gave {len(values)} result(s) for "
                f"{len(named)} instance(s) of {group!r}; each instance needs exactly one "
                "(the gang is left whole)"
            )
        )
        return None
    if not any(values):  # nothing waits: everything starts at once
        return None
    known = set(named)
    starts: dict[tuple[Wait, ...], list[str]] = {}
    for instance, value in zip(named, values, strict=True):
        waits = _waits(value, compiled.name, issues)
        if waits is None:
            return None
        key = tuple(sorted({w for w in waits if w[0] in known and w[0] != instance}))
        starts.setdefault(key, []).append(instance)
    if len(starts) < 2:
        return None
    stages = [Stage(tuple(members), waits) for waits, members in starts.items()]
    return tuple(sorted(stages, key=_depths(stages).__getitem__))


def stage_component(compiled: CompiledDefinition) -> str | None:
    """The component whose instances start in stages, if the definition names one."""
    return _stages_of(compiled)


def _stages_of(compiled: CompiledDefinition) -> str | None:
    instructions = compiled.definition.spec.optimization_instructions
    gang = instructions.gang_scheduling if instructions else None
    group = gang.pod_group if gang else None
    return group.stages.component_name if group and group.stages else None


def _waits(value: Any, definition: str, issues: Issues) -> list[Wait] | None:
    if value is None:
        return []
    entries = value if isinstance(value, list) else [value]
    waits: list[Wait] = []
    for entry in entries:
        if isinstance(entry, str):
            waits.append((entry, None))
        elif isinstance(entry, dict) and isinstance(entry.get("name"), str):
            status = entry.get("status")
            waits.append((entry["name"], status if isinstance(status, str) else None))
        else:
            issues.report(
                WorkloadShapeError(
                    f"{definition}: {STAGES_PATH} gave {entry!r}; expected an instance id "
                    "or {name, status} (the gang is left whole)"
                )
            )
            return None
    return waits


def _depths(stages: Sequence[Stage]) -> dict[Stage, tuple[int, int]]:
    """Each stage's place in start order: how many stages it waits behind (the longest
    chain), then where it appears. A cycle (which no framework would start) stops at
    the number of stages."""
    where = {i: s for s in stages for i in s.ids}
    depth: dict[Stage, int] = dict.fromkeys(stages, 0)
    for _ in range(len(stages)):
        changed = False
        for stage in stages:
            before = [depth[where[n]] + 1 for n, _ in stage.waits if n in where]
            level = min(max(before, default=0), len(stages))
            if level != depth[stage]:
                depth[stage], changed = level, True
        if not changed:
            break
    return {s: (depth[s], i) for i, s in enumerate(stages)}
