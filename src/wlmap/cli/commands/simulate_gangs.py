"""``wlmap simulate gangs``: topology-aware gang placement, simulated or for one workload.

Nothing heavy is imported here: the topology engine (numpy) and the policies load inside
the command when it runs.
"""

from __future__ import annotations

from typing import Any

import click

from wlmap.cli._session import Session
from wlmap.cli.commands._base import command, file_option, levels_option
from wlmap.cli.commands._simulate_options import (
    render_rows,
    rows_options,
    seeds_option,
    write_output,
)

SHORT_HELP = "Simulate topology-aware gang placement, or place one workload's gangs."
_NAMES = "lingjun|gb200|kueue-tas|n256g8|FILE"


@command("gangs", short_help=SHORT_HELP)
@click.option(
    "--topology",
    metavar=_NAMES,
    help="The cluster: a built-in shape (gb200, kueue-tas, n256g8), the Lingjun topo.csv, a "
    "Tiresias cluster spec CSV, or a Kubernetes node list with topology labels (with --levels).",
)
@click.option(
    "--nodes",
    metavar="FILE",
    type=click.Path(dir_okay=False),
    help="A Kubernetes node list to place a workload's gangs on (with -f and --levels).",
)
@levels_option(
    required=False,
    help="Node-label keys of the topology levels, coarsest first (for a node list).",
)
@file_option(required=False, help="A workload whose gangs to place (with --nodes).")
@click.option(
    "--blocks",
    type=click.IntRange(min=1),
    default=4,
    show_default=True,
    help="Blocks of the gb200 shape.",
)
@click.option(
    "--policy",
    "policies",
    multiple=True,
    metavar="NAME",
    help="A gang policy (repeatable), or 'all' (the default). With -f, the first is used "
    "(default: wlmap).",
)
@click.option(
    "--load",
    "loads",
    multiple=True,
    type=click.FloatRange(min=0, min_open=True),
    help="Offered GPU load as a share of the capacity (repeatable).  [default: 0.8]",
)
@seeds_option()
@click.option(
    "--hours",
    type=click.FloatRange(min=0, min_open=True),
    default=24.0,
    show_default=True,
    help="Simulated hours of arrivals.",
)
@click.option(
    "--queue",
    type=click.Choice(["skip", "fifo"]),
    default="skip",
    show_default=True,
    help="skip: a gang that does not fit lets the next try (Kueue BestEffortFIFO); "
    "fifo: the head blocks the queue (StrictFIFO).",
)
@click.option(
    "--durations",
    metavar="FILE",
    type=click.Path(dir_okay=False),
    help="Draw durations from the Tiresias 60_job.csv sample instead of a lognormal.",
)
@click.option(
    "--objective",
    metavar="FILE",
    type=click.Path(dir_okay=False),
    help="An objective file for the policies that read one (wlmap's); others ignore it.",
)
@click.option(
    "--verify", is_flag=True, help="Check every placement independently; stop at a bad one."
)
@rows_options
def gangs(
    session: Session,
    topology: str | None,
    nodes: str | None,
    levels: list[str],
    files: tuple[str, ...],
    blocks: int,
    policies: tuple[str, ...],
    loads: tuple[float, ...],
    seeds: tuple[list[int], ...],
    hours: float,
    queue: str,
    durations: str | None,
    objective: str | None,
    verify: bool,
    fmt: str | None,
    output_file: str | None,
) -> None:
    """Simulate gangs of a SYNTHETIC job mix arriving on a topology, one CSV row per policy,
    load and seed; or, with -f and --nodes, place one workload's gangs and print each
    gang's Kueue-style topology assignment (levels and pods per domain) with the reason.
    """
    from wlmap.app import gang_simulation as run  # noqa: PLC0415 - loads the engine

    if files:
        if (nodes is None) == (topology is None):
            raise click.UsageError("with -f, give the cluster with --nodes FILE or --topology")
        items = run.place_workload_gangs(
            nodes or topology or "",
            levels,
            blocks,
            policies,
            lambda: session.workloads(files),
            session.output.warn,
            objective=objective,
        )
        fmt = fmt or "yaml"
        if fmt == "csv":
            text = render_rows(run.assignment_rows(items), "csv")
        else:
            text = session.output.format({"items": items, "count": len(items)}, fmt)
        write_output(session, text, output_file)
        return
    if topology is None:
        raise click.UsageError("give the cluster with --topology " + _NAMES)
    rows, notes = run.simulate_gang_mix(
        topology,
        levels,
        blocks,
        policies,
        list(dict.fromkeys(loads)) or [0.8],
        sorted({s for group in seeds for s in group}) or [42],
        hours=hours,
        queue="fifo" if queue == "fifo" else "skip",
        verify=verify,
        durations=durations,
        objective=objective,
    )
    for note in notes:
        session.output.warn(note)
    fmt = fmt or "csv"
    text = render_rows(rows, fmt) if fmt != "yaml" else session.output.format(_items(rows), fmt)
    write_output(session, text, output_file)


def _items(rows: list[dict[str, Any]]) -> dict[str, Any]:
    return {"items": rows, "count": len(rows)}
