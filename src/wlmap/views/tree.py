"""Rendering a workload view as a human-readable component tree with totals."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

from wlmap.quantity import format_bytes, format_cores
from wlmap.views._text import printable
from wlmap.workload import ComponentView, GangGroup, WorkloadView
from wlmap.workload.gangs import scheduled_gangs

_COLUMNS = ("COMPONENT", "INSTANCE", "REPLICAS", "PODS", "GPU/POD", "GPUS", "CPU", "MEMORY")


def render_tree(view: WorkloadView, origin: str | None = None) -> str:
    """The text block ``wlmap describe`` prints for one workload (its warnings are the
    caller's to print, on stderr)."""
    lines = [_header(view, origin), f"Status: {', '.join(view.phases)}{_why(view)}", ""]
    rows = [list(_COLUMNS)] + [
        [printable(cell) for cell in _row(c, prefix)] for c, prefix in _drawn(view)
    ]
    widths = [max(len(r[i]) for r in rows) for i in range(len(_COLUMNS))]
    lines.extend(
        "  ".join(cell.ljust(w) for cell, w in zip(r, widths, strict=True)).rstrip() for r in rows
    )
    totals = view.totals
    lines.append("")
    lines.append(
        f"Totals: {view.total_pods} pods, {_gpus(totals.total_gpus)} GPUs, "
        f"{format_cores(totals.requests.get('cpu', Decimal(0)))} CPU, "
        f"{format_bytes(totals.requests.get('memory', Decimal(0)))} memory"
        + (f", MIG {dict(totals.mig)}" if totals.mig else "")
    )
    lines.extend(_gang_line(gang) for gang in scheduled_gangs(view.gang_groups))
    return "\n".join(printable(line) for line in lines)


def _header(view: WorkloadView, origin: str | None) -> str:
    where = f"  namespace: {view.namespace}" if view.namespace else ""
    source = f"  ({origin})" if origin else ""
    return f"{view.kind}/{view.name}{where}  definition: {view.definition}{source}"


def _why(view: WorkloadView) -> str:
    report = view.explanation
    if report.matched:
        first = report.matched[0]
        evidence = "; ".join(_evidence(e.check, e.found, e.facts) for e in first.evidence)
        return f"  [{first.status.value.lower()}[{first.index}]: {evidence}]"
    return f"  [{report.note}]" if report.note else ""


def _evidence(check: str, found: Any, facts: tuple[tuple[str, Any], ...]) -> str:
    """The decisive facts of one check; an expression shows the fields it read, not its
    text (``wlmap explain`` shows the expression)."""
    if check == "condition" and isinstance(found, dict):
        reason = f" ({found['reason']})" if found.get("reason") else ""
        return f"{found.get('type')}={found.get('status')}{reason}"
    if check == "phase":
        return f"phase={found}"
    if facts:
        return ", ".join(f"{path}={_fact(value)}" for path, value in facts)
    return f"expression gave {found}"


def _fact(value: Any) -> str:
    if isinstance(value, dict):
        return "{...}"
    if isinstance(value, list):
        return f"[{len(value)} items]"
    return json.dumps(value, ensure_ascii=False)


def _gang_line(gang: GangGroup) -> str:
    subs = ", ".join(f"{s.name} >= {s.min_member}" for s in gang.sub_groups)
    name = gang.name if gang.holds is None or not gang.key else f"{gang.name} ({gang.key[0]})"
    line = f"Gang {name}: at least {gang.min_member} pods of {', '.join(gang.members)}"
    if subs:
        line += f"; subgroups {subs}"
    if gang.source == "podGroups" and gang.key is None:
        line += "; one gang per key once pods exist"
    if gang.starts_after:
        line += f"; {gang.starts_after}: separate gang"
    return line


def _drawn(view: WorkloadView) -> list[tuple[ComponentView, str]]:
    """Component rows in tree order, each with the branch drawing before its name.

    A child instance hangs under the parent instance of the same id (a JobSet's pods of
    one replicatedJob), else under the parent's only instance; when the parent has several
    instances and none shares the id, under the nearest ancestor instance it surely
    belongs to. Roles the object does not have are left out.
    """
    shown = [c for c in view.components if not c.absent]
    rows_of: dict[str, list[int]] = {}
    for index, component in enumerate(shown):
        rows_of.setdefault(component.name, []).append(index)
    parents = {c.name: c.parent for c in view.components}
    parent_of = [_parent_row(shown, rows_of, parents, index) for index in range(len(shown))]
    children: dict[int | None, list[int]] = {}
    for index, parent in enumerate(parent_of):
        children.setdefault(parent, []).append(index)
    drawn: list[tuple[ComponentView, str]] = []

    def walk(index: int, branch: str, trunk: str) -> None:
        drawn.append((shown[index], branch))
        below = children.get(index, [])
        for position, child in enumerate(below):
            last = position == len(below) - 1
            walk(child, trunk + ("└─ " if last else "├─ "), trunk + ("   " if last else "│  "))

    for root in children.get(None, []):
        walk(root, "", "")
    return drawn


def _parent_row(
    rows: list[ComponentView],
    rows_of: dict[str, list[int]],
    parents: dict[str, str | None],
    index: int,
) -> int | None:
    """The row a component instance hangs under (None: a root)."""
    row = rows[index]
    parent = row.parent
    while parent is not None:
        candidates = rows_of.get(parent, [])
        same_id = [i for i in candidates if rows[i].instance == row.instance]
        if len(same_id) == 1:
            return same_id[0]
        if len(candidates) == 1:
            return candidates[0]
        parent = parents.get(parent)  # several or none: one level up
    return None


def _row(c: ComponentView, branch: str) -> list[str]:
    name = branch + c.name
    replicas = "-" if c.replicas is None else str(c.replicas)
    if c.min_replicas is not None or c.max_replicas is not None:
        replicas += f" ({c.min_replicas if c.min_replicas is not None else '?'}"
        replicas += f"..{c.max_replicas if c.max_replicas is not None else '?'})"
    if c.template is None or c.per_pod is None or c.total is None:
        return [name, c.instance or "-", replicas, "-", "-", "-", "-", "-"]
    pods = str(c.pods)
    if c.pods_observed is not None:
        pods = f"{c.pods_ready}/{c.pods} ready"
    return [
        name,
        c.instance or "-",
        replicas,
        pods,
        _gpus(c.per_pod.total_gpus),
        _gpus(c.total.total_gpus),
        format_cores(c.total.requests.get("cpu", Decimal(0))),
        format_bytes(c.total.requests.get("memory", Decimal(0))),
    ]


def _gpus(value: Decimal) -> str:
    return str(int(value)) if value == int(value) else f"{float(value):g}"
