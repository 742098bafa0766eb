"""The rows of ``wlmap get``: one line per workload with its phase, pods and GPUs."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from wlmap.views.table import render_table
from wlmap.workload import WorkloadView
from wlmap.workload.quantity import format_bytes, format_cores
from wlmap.workload.view import identity


@dataclass(frozen=True)
class Listed:
    """A workload as ``get`` lists it: small, so that it can cross process boundaries."""

    api_version: str | None
    kind: str | None
    name: str | None
    namespace: str | None
    definition: str
    phases: tuple[str, ...]
    total_pods: int
    gpus: Decimal
    cpu: Decimal
    memory: Decimal
    totals: dict[str, Any]
    labels: dict[str, str]
    origin: str
    created: str | None
    top_level: bool
    pods_ready: int | None = None

    @classmethod
    def of(cls, view: WorkloadView, obj: Mapping[str, Any], origin: str, top_level: bool) -> Listed:
        """The listing row of a view."""
        metadata = obj.get("metadata") or {}
        labels = metadata.get("labels")
        created = metadata.get("creationTimestamp")
        totals = view.totals
        return cls(
            api_version=view.api_version,
            kind=view.kind,
            name=view.name,
            namespace=view.namespace,
            definition=view.definition,
            phases=view.phases,
            total_pods=view.total_pods,
            gpus=totals.total_gpus,
            cpu=totals.requests.get("cpu", Decimal(0)),
            memory=totals.requests.get("memory", Decimal(0)),
            totals=view.totals_dict(),
            labels=dict(labels) if isinstance(labels, Mapping) else {},
            origin=origin,
            created=created if isinstance(created, str) else None,
            top_level=top_level,
            pods_ready=None
            if view.pods is None
            else sum(c.pods_ready or 0 for c in view.components),
        )

    def to_dict(self) -> dict[str, Any]:
        """The JSON item: identity, phases and totals."""
        return {
            **identity(self),
            "totals": self.totals,
            "podsReady": self.pods_ready,
            "createdAt": self.created,
            "origin": self.origin,
        }


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
    """The ``get`` table; PODS is ``ready/desired`` where the input holds the pods."""
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
        gpus = item.gpus
        row = [
            item.namespace or "-",
            item.name or "-",
            *([item.kind or "-"] if show_kind else []),
            ",".join(item.phases),
            str(item.total_pods)
            if item.pods_ready is None
            else f"{item.pods_ready}/{item.total_pods}",
            str(int(gpus)) if gpus == int(gpus) else f"{float(gpus):g}",
            age(item.created, now),
        ]
        if wide:
            row += [format_cores(item.cpu), format_bytes(item.memory), item.definition]
        rows.append(row)
    return render_table(headers, rows, width)
