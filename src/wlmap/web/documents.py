"""The JSON documents of one workload, the same whichever source read it: its row on the
Workloads page and its Workload page."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from wlmap.workload import WorkloadView

__all__ = ["counts", "workload_detail", "workload_row"]


def workload_row(
    view: WorkloadView, obj: Mapping[str, Any], origin: str, key: int
) -> dict[str, Any]:
    """The row `wlmap get -o json` lists, with the page's key, gang minimums and labels."""
    from wlmap.views.listing import Listed  # noqa: PLC0415 - the rows `get` lists

    row = Listed.of(view, obj, origin, True).to_dict()
    row["key"] = key
    row["gangs"] = [{"name": g.name, "minMember": g.min_member} for g in view.gang_groups]
    row["labels"] = (obj.get("metadata") or {}).get("labels") or {}
    return row


def workload_detail(view: WorkloadView, origin: str) -> dict[str, Any]:
    """What `wlmap describe -o json` says, with where it was read and its gang stages."""
    from wlmap.views.explanation import split_gangs  # noqa: PLC0415

    document = view.to_dict()
    document["origin"] = origin
    document["gangStages"] = [g.to_dict() for g in split_gangs(view)]
    return document


def counts(rows: list[dict[str, Any]]) -> dict[str, int]:
    """How many rows are in each state."""
    found: dict[str, int] = {}
    for row in rows:
        for phase in row["phases"]:
            found[phase] = found.get(phase, 0) + 1
    return found
