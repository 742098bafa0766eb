"""The rows of ``wlmap get``: one line per workload with its phase, pods and GPUs."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from wlmap.quantity import format_bytes, format_cores
from wlmap.views._text import printable
from wlmap.views.table import render_table
from wlmap.workload import WorkloadView
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
    warnings: tuple[str, ...] = ()  # what could not be read (gangs are not worked out)

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
            warnings=view.warnings_reader(),
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
    """The AGE kubectl prints for a creation timestamp; ``<unknown>`` when absent."""
    if not created:
        return "<unknown>"
    try:
        then = datetime.fromisoformat(created.replace("Z", "+00:00"))
    except ValueError:
        return "<unknown>"
    if then.tzinfo is None:
        return "<unknown>"
    return human_duration(int(((now or datetime.now(UTC)) - then).total_seconds()))


def human_duration(seconds: int) -> str:
    """A duration as kubectl shows ages (apimachinery's ``duration.HumanDuration``): two
    units while the larger is small (``5m30s``, ``3h10m``, ``2d4h``, ``2y30d``), one after;
    up to a second in the future is ``0s`` (clock skew), further is ``<invalid>``."""
    if seconds < -1:
        return "<invalid>"
    if seconds < 0:
        return "0s"
    if seconds < 2 * 60:
        return f"{seconds}s"
    minutes = seconds // 60
    if minutes < 10:
        return _two(minutes, "m", seconds % 60, "s")
    if minutes < 3 * 60:
        return f"{minutes}m"
    hours = minutes // 60
    if hours < 8:
        return _two(hours, "h", minutes % 60, "m")
    if hours < 48:
        return f"{hours}h"
    days = hours // 24
    if hours < 8 * 24:
        return _two(days, "d", hours % 24, "h")
    if hours < 2 * 365 * 24:
        return f"{days}d"
    years = days // 365
    if hours < 8 * 365 * 24:
        return _two(years, "y", days % 365, "d")
    return f"{years}y"


def _two(large: int, large_unit: str, small: int, small_unit: str) -> str:
    return f"{large}{large_unit}" + (f"{small}{small_unit}" if small else "")


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
        rows.append([printable(cell) for cell in row])
    return render_table(headers, rows, width)
