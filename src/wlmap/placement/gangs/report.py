"""Result rows of gang simulation runs, and their summary per policy.

One row per run (scenario, policy, seed, load) with the figures of section 9a of the
benchmark method, and the communication cost over multi-pod gangs only. Locality figures
are taken at the finest topology level (the rack, the ToR switch): the level whose name
the ``level`` column gives. Every figure is a plain number; a figure with nothing to measure (no gang admitted, no gang with a required
level) is None, written as an empty CSV cell.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np

from wlmap.placement.gangs.gang_simulator import Admitted, Run
from wlmap.placement.gangs.jobmix import LABEL

__all__ = ["FIGURES", "run_row", "summarise"]

# (column stem, what it measures per admitted gang); each gets _mean and _p95 columns
_PER_GANG: tuple[tuple[str, Callable[[Admitted, int], float]], ...] = (
    ("span", lambda a, lvl: a.quality.span[lvl]),
    ("excess_span", lambda a, lvl: a.excess_span[lvl]),
    ("locality", lambda a, lvl: a.quality.locality[lvl]),
    ("cross_domain", lambda a, lvl: a.quality.leakage[lvl]),
    ("cost", lambda a, lvl: a.quality.cost),
)
FIGURES = (
    *(f"{stem}_{stat}" for stem, _ in _PER_GANG for stat in ("mean", "p95")),
    "multi_pod_cost_mean",
    "multi_pod_cost_p95",
    "required_satisfied_pct",
    "delay_p50_s",
    "delay_p95_s",
    "occupancy_pct",
    "whole_free_domains",
)


def run_row(run: Run, *, seed: int, load: float, level: str) -> dict[str, Any]:
    """The result row of one run; ``level`` names the finest topology level."""
    finest = _finest(run)
    row: dict[str, Any] = {
        "scenario": run.scenario,
        "policy": run.policy,
        "seed": seed,
        "load": load,
        "queue": run.queue,
        "hours": run.hours,
        "jobs": f"{LABEL} Philly/Gavel mix",
        "level": level,
        "arrived": run.arrived,
        "admitted": len(run.admitted),
        "waiting": run.waiting,
        "rejected": run.rejected,
    }
    for stem, figure in _PER_GANG:
        values = [figure(a, finest) for a in run.admitted]
        row[f"{stem}_mean"] = _round(float(np.mean(values))) if values else None
        row[f"{stem}_p95"] = _round(float(np.percentile(values, 95))) if values else None
    # A single pod has no pairs and costs 0 anywhere, so it dilutes the mean cost; the
    # gangs of two pods or more show where policies differ.
    multi = [a.quality.cost for a in run.admitted if a.gang.pods > 1]
    row["multi_pod_gangs"] = len(multi)
    row["multi_pod_cost_mean"] = _round(float(np.mean(multi))) if multi else None
    row["multi_pod_cost_p95"] = _round(float(np.percentile(multi, 95))) if multi else None
    checked = [a.required_met for a in run.admitted if a.required_met is not None]
    row["required_gangs"] = len(checked)
    row["required_satisfied_pct"] = _round(100.0 * sum(checked) / len(checked)) if checked else None
    delays = [a.start - a.arrival for a in run.admitted]
    row["delay_p50_s"] = _round(float(np.percentile(delays, 50))) if delays else None
    row["delay_p95_s"] = _round(float(np.percentile(delays, 95))) if delays else None
    row["occupancy_pct"] = _round(100.0 * run.occupancy)
    row["whole_free_domains"] = _round(run.whole_free)
    row["domains"] = run.domains
    return row


def _finest(run: Run) -> int:
    if not run.admitted:
        return 0
    return len(run.admitted[0].quality.span) - 2  # the last entry is the node level


def _round(value: float) -> float:
    return round(value, 4)


def summarise(
    rows: Iterable[dict[str, Any]], keys: Sequence[str] = ("scenario", "load", "policy")
) -> list[dict[str, Any]]:
    """The mean of each figure over the runs (seeds) that share ``keys``, in first-seen order."""
    groups: dict[tuple[Any, ...], list[dict[str, Any]]] = {}
    for row in rows:
        groups.setdefault(tuple(row[k] for k in keys), []).append(row)
    summary = []
    for key, members in groups.items():
        entry: dict[str, Any] = dict(zip(keys, key, strict=True))
        entry["runs"] = len(members)
        for figure in FIGURES:
            values = [m[figure] for m in members if m.get(figure) is not None]
            entry[figure] = _round(float(np.mean(values))) if values else None
        summary.append(entry)
    return summary
