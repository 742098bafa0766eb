"""Rendering a status explanation: the rule that fired with its evidence, or the near misses."""

from __future__ import annotations

import json
from typing import Any

from wlmap.workload import GangGroup, WorkloadView
from wlmap.workload.gangs import scheduled_gangs
from wlmap.workload.status import Evidence, MatcherResult


def render_explanation(view: WorkloadView) -> str:
    """The text ``wlmap explain`` prints for one workload."""
    report = view.explanation
    lines = [f"{view.kind}/{view.name}: {', '.join(view.phases)}"]
    if report.note:
        lines.append(f"  {report.note}")
    for result in report.matched:
        lines.append(f"  {_title(result)} matched:")
        lines.extend(f"    {_evidence(e)}" for e in result.evidence)
    if report.nearest_misses:
        lines.append("  nearest misses:")
        for result in report.nearest_misses:
            lines.append(
                f"    {_title(result)} ({sum(e.holds for e in result.evidence)}/{len(result.evidence)} held):"
            )
            lines.extend(f"      {_evidence(e)}" for e in result.evidence)
    if report.phase is not None:
        lines.append(f"  observed phase: {report.phase}")
    for condition in report.conditions:
        reason = f" ({condition['reason']})" if condition.get("reason") else ""
        # the message is what names the cause (a PodCliqueSet's: which child regressed)
        message = f": {condition['message']}" if condition.get("message") else ""
        lines.append(
            f"  observed condition: {condition['type']}={condition.get('status')}{reason}{message}"
        )
    lines.extend(_stage_lines(view))
    return "\n".join(lines)


def split_gangs(view: WorkloadView) -> list[GangGroup]:
    """The workload's gangs when they are split by start stage, else none: a stage
    whose pods are created only after others' cannot share a gang with them."""
    found = scheduled_gangs(view.gang_groups)
    return found if any(g.starts_after for g in found) else []


def _stage_lines(view: WorkloadView) -> list[str]:
    split = split_gangs(view)
    if not split:
        return []
    lines = ["  gangs, one per start stage:"]
    for gang in split:
        key = f" ({', '.join(gang.key)})" if gang.key else ""
        why = f"{gang.starts_after}: separate gang" if gang.starts_after else "starts first"
        lines.append(f"    {gang.name}{key}: at least {gang.min_member} pods; {why}")
    return lines


def _title(result: MatcherResult) -> str:
    return f"{result.status.value.lower()}[{result.index}]"


def _evidence(evidence: Evidence) -> str:
    mark = "✓" if evidence.holds else "✗"
    if evidence.check == "phase":
        return f"{mark} phase is {evidence.expected['phase']!r} (found {_show(evidence.found)})"
    if evidence.check == "condition":
        wanted = ", ".join(f"{k}={v}" for k, v in evidence.expected.items() if k != "type")
        found = evidence.found
        seen = (
            "missing"
            if found is None
            else ", ".join(f"{k}={v}" for k, v in found.items() if k in ("status", "reason"))
        )
        return f"{mark} condition {evidence.expected['type']} {wanted} (found {seen})"
    return (
        f"{mark} {evidence.expected['expression']} == {evidence.expected['result']!r} "
        f"(found {_show(evidence.found)})"
    )


def _show(value: Any) -> str:
    return "nothing" if value is None else json.dumps(value)
