"""Rendering a workload view as a human-readable component tree with totals."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from wlmap.workload import ComponentView, WorkloadView
from wlmap.workload.quantity import format_bytes, format_cores

_COLUMNS = ("COMPONENT", "INSTANCE", "REPLICAS", "PODS", "GPU/POD", "GPUS", "CPU", "MEMORY")


def render_tree(view: WorkloadView, origin: str | None = None) -> str:
    """The text block ``wlmap describe`` prints for one workload."""
    lines = [_header(view, origin), f"Status: {', '.join(view.phases)}{_why(view)}", ""]
    rows = [list(_COLUMNS)] + [_row(view, c) for c in view.components]
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
    for gang in view.gang_groups:
        subs = ", ".join(f"{s.name} >= {s.min_member}" for s in gang.sub_groups)
        how = "podGroup" if gang.source == "podGroup" else "podGroups"
        if gang.source != "podGroup" and gang.key is None:
            how += ", one gang per key once pods exist"
        lines.append(
            f"Gang {gang.name} ({how}): at least {gang.min_member} pods of {', '.join(gang.members)}"
            + (f"; subgroups {subs}" if subs else "")
        )
    lines.extend(f"warning: {w}" for w in view.warnings)
    return "\n".join(lines)


def _header(view: WorkloadView, origin: str | None) -> str:
    where = f"  namespace: {view.namespace}" if view.namespace else ""
    source = f"  ({origin})" if origin else ""
    return f"{view.kind}/{view.name}{where}  definition: {view.definition}{source}"


def _why(view: WorkloadView) -> str:
    report = view.explanation
    if report.matched:
        first = report.matched[0]
        evidence = "; ".join(_evidence(e.check, e.expected, e.found) for e in first.evidence)
        return f"  [{first.status.value.lower()}[{first.index}]: {evidence}]"
    return f"  [{report.note}]" if report.note else ""


def _evidence(check: str, expected: dict[str, Any], found: Any) -> str:
    if check == "condition" and isinstance(found, dict):
        reason = f" ({found['reason']})" if found.get("reason") else ""
        return f"{found.get('type')}={found.get('status')}{reason}"
    if check == "phase":
        return f"phase={found}"
    return f"{expected.get('expression')} -> {found}"


def _depth(view: WorkloadView, component: ComponentView) -> int:
    parents = {c.name: c.parent for c in view.components}
    depth, current = 0, component.parent
    while current is not None:
        depth, current = depth + 1, parents.get(current)
    return depth


def _row(view: WorkloadView, c: ComponentView) -> list[str]:
    depth = _depth(view, c)
    name = ("  " * (depth - 1) + "└─ " if depth else "") + c.name
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
