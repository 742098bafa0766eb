"""Figures of simulation results: GPU allocation against the arrived share, per policy.

In the style of the FGD paper's figures: x is the arrived GPU demand in percent of the
cluster's GPU capacity (0 to 130), y the allocated share of the GPUs in percent. Each
policy is the mean over its seeds, with the seeds' range shaded; the offline bound is a
dashed black line and the ideal, ``min(arrived, 100 %)``, a dotted grey one. The right
panel magnifies the saturated end (from 80 % arrived), where the policies differ. A results
file with several traces gets one row of panels per trace.

matplotlib is used through its object API with the Agg canvas (no pyplot, no display), and
SVG output is made reproducible: no date, a fixed hash salt for element ids.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["BOUND", "Curve", "curves", "plot_allocation"]

BOUND = "bound"
"""The policy name under which result rows carry the offline bound."""

ARRIVED = "arrived_pct"
ALLOCATION = "allocation_pct"
ZOOM_FROM = 80


@dataclass(frozen=True)
class Curve:
    """One policy's allocation over the arrived share, across seeds.

    Attributes:
        trace: the trace the runs used ("" when the results do not say).
        policy: the policy name, or :data:`BOUND`.
        arrived: arrived shares in percent, increasing.
        mean, low, high: the mean, smallest and largest allocation (percent) over the seeds.
        seeds: how many seeds were averaged.
    """

    trace: str
    policy: str
    arrived: tuple[float, ...]
    mean: tuple[float, ...]
    low: tuple[float, ...]
    high: tuple[float, ...]
    seeds: int


def curves(rows: Iterable[Mapping[str, str]]) -> list[Curve]:
    """Curves from result rows (``trace``, ``policy``, ``seed``, ``arrived_pct``,
    ``allocation_pct``); values must already be validated numbers."""
    values: dict[tuple[str, str], dict[float, list[float]]] = defaultdict(lambda: defaultdict(list))
    seeds: dict[tuple[str, str], set[str]] = defaultdict(set)
    for row in rows:
        key = (row.get("trace") or "", row["policy"])
        values[key][float(row[ARRIVED])].append(float(row[ALLOCATION]))
        seeds[key].add(row.get("seed") or "")
    found = []
    for (trace, policy), by_arrived in values.items():
        arrived = sorted(by_arrived)
        found.append(
            Curve(
                trace,
                policy,
                tuple(arrived),
                tuple(sum(by_arrived[a]) / len(by_arrived[a]) for a in arrived),
                tuple(min(by_arrived[a]) for a in arrived),
                tuple(max(by_arrived[a]) for a in arrived),
                len(seeds[(trace, policy)]),
            )
        )
    return found


def plot_allocation(found: Sequence[Curve], stem: Path) -> list[Path]:
    """Write ``<stem>.png`` and ``<stem>.svg``; returns their paths."""
    from matplotlib import rc_context  # noqa: PLC0415 - plotting loads matplotlib when asked
    from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: PLC0415
    from matplotlib.figure import Figure  # noqa: PLC0415 - start-up cost

    traces = sorted({c.trace for c in found})
    policies = sorted({c.policy for c in found if c.policy != BOUND})
    colours = {p: f"C{i % 10}" for i, p in enumerate(policies)}
    figure = Figure(figsize=(11, 4.2 * len(traces)), layout="constrained")
    FigureCanvasAgg(figure)
    axes = figure.subplots(len(traces), 2, squeeze=False)
    for row, trace in enumerate(traces):
        mine = [c for c in found if c.trace == trace]
        for column, zoom in enumerate((False, True)):
            axis = axes[row][column]
            axis.plot([0, 100, 130], [0, 100, 100], color="0.6", linestyle=":", label="ideal")
            for curve in sorted(mine, key=lambda c: (c.policy == BOUND, c.policy)):
                _draw(axis, curve, colours.get(curve.policy, "black"))
            _frame(axis, mine, zoom, trace)
        axes[row][0].legend(loc="upper left", fontsize="small", frameon=False)
    written = []
    with rc_context({"svg.hashsalt": "wlmap"}):  # stable element ids in the SVG
        for suffix in (".png", ".svg"):
            path = stem.with_suffix(suffix)
            metadata = {"Date": None} if suffix == ".svg" else {"Software": "wlmap"}
            figure.savefig(path, dpi=150, metadata=metadata)
            written.append(path)
    return written


def _draw(axis: Axes, curve: Curve, colour: str) -> None:
    if curve.policy == BOUND:
        axis.plot(curve.arrived, curve.mean, color="black", linestyle="--", label="offline bound")
        return
    label = f"{curve.policy} ({curve.seeds} seed{'s' if curve.seeds > 1 else ''})"
    axis.plot(curve.arrived, curve.mean, color=colour, linewidth=1.4, label=label)
    if curve.seeds > 1:
        axis.fill_between(
            curve.arrived, curve.low, curve.high, color=colour, alpha=0.18, linewidth=0
        )


def _frame(axis: Axes, mine: Sequence[Curve], zoom: bool, trace: str) -> None:
    axis.set_xlabel("Arrived workloads (% of GPU capacity)")
    axis.set_ylabel("GPU allocation (%)")
    axis.grid(True, color="0.9")
    if zoom:
        # low enough to show every curve's final value, which is where they differ
        final = [min(c.low[-1], 90.0) for c in mine if c.arrived]
        axis.set_xlim(ZOOM_FROM, 130)
        axis.set_ylim(max(0.0, min(final, default=90.0) - 3), 101)
        axis.set_title(f"{trace}: saturated end" if trace else "saturated end")
    else:
        axis.set_xlim(0, 130)
        axis.set_ylim(0, 101)
        axis.set_title(trace or "GPU allocation")
