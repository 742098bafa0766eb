"""The rows of ``wlmap get``: one line per workload with its phase, pods and GPUs."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from wlmap.views.table import render_table
from wlmap.workload import WorkloadView
from wlmap.workload.quantity import format_bytes, format_cores


@dataclass(frozen=True)
class Listed:
    """A workload as ``get`` lists it."""

    view: WorkloadView
    origin: str
    created: str | None

    def to_dict(self) -> dict[str, Any]:
        """The JSON item: the view's identity, phases and totals."""
        data = self.view.to_dict()
        return {
            key: data[key]
            for key in ("apiVersion", "kind", "name", "namespace", "definition", "phases", "totals")
        } | {"createdAt": self.created, "origin": self.origin}


def age(created: str | None, now: datetime | None = None) -> str:
    """kubectl-style age (``5d``, ``3h``, ``12m``, ``40s``), ``<unknown>`` when absent."""
    if not created:
        return "<unknown>"
    try:
        then = datetime.fromisoformat(created.replace("Z", "+00:00"))
    except ValueError:
        return "<unknown>"
    seconds = int(((now or datetime.now(UTC)) - then).total_seconds())
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{seconds // size}{unit}"
    return f"{max(seconds, 0)}s"


def render_listing(
    items: Sequence[Listed],
    *,
    wide: bool,
    show_kind: bool,
    width: int | None,
    now: datetime | None = None,
) -> str:
    """The ``get`` table."""
    headers = [
        "NAMESPACE",
        "NAME",
        *(["KIND"] if show_kind else []),
        "PHASE",
        "PODS",
        "GPUS",
        "AGE",
    ]
    if wide:
        headers += ["CPU", "MEMORY", "DEFINITION"]
    rows = []
    for item in items:
        view = item.view
        gpus = view.totals.total_gpus
        row = [
            view.namespace or "-",
            view.name or "-",
            *([view.kind or "-"] if show_kind else []),
            ",".join(view.phases),
            str(view.total_pods),
            str(int(gpus)) if gpus == int(gpus) else f"{float(gpus):g}",
            age(item.created, now),
        ]
        if wide:
            row += [
                format_cores(view.totals.requests.get("cpu", Decimal(0))),
                format_bytes(view.totals.requests.get("memory", Decimal(0))),
                view.definition,
            ]
        rows.append(row)
    return render_table(headers, rows, width)
