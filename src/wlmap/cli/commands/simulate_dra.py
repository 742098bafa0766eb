"""``wlmap simulate dra``: DRA devices for gangs, simulated or for one workload.

Nothing heavy is imported here: the device planner and the CEL engine load inside the
command when it runs.
"""

from __future__ import annotations

import click

from wlmap.cli._session import Session
from wlmap.cli.commands._base import command, file_option
from wlmap.cli.commands._simulate_options import (
    render_rows,
    rows_options,
    seeds_option,
    write_output,
)

SHORT_HELP = "Simulate DRA device allocation for gangs, or place one workload's claims."


@command("dra", short_help=SHORT_HELP)
@file_option(required=False, help="A workload whose pods' DRA claims to place (with --cluster).")
@click.option(
    "--cluster",
    metavar="FILE",
    type=click.Path(dir_okay=False),
    help="A dump of kubectl get nodes,resourceslices,deviceclasses,resourceclaimtemplates "
    "-o yaml to place the workload's claims on (with -f).",
)
@click.option(
    "--gang-attribute",
    "gang_attributes",
    multiple=True,
    metavar="NAME",
    help="A device attribute all of a gang's devices must share, fully qualified "
    "(repeatable; with -f, for wlmap's planner), e.g. gpu.nvidia.com/cliqueId.",
)
@click.option(
    "--policy",
    "policies",
    multiple=True,
    metavar="NAME",
    help="first-fit, clique-first-fit (scenario only), wlmap (repeatable), or 'all' (the default).",
)
@click.option(
    "--node-count",
    type=click.IntRange(min=1),
    default=64,
    show_default=True,
    help="Nodes of 8 GPUs in the simulated cluster.",
)
@click.option(
    "--gangs", type=click.IntRange(min=1), default=400, show_default=True, help="Gangs offered."
)
@click.option(
    "--hold",
    type=click.FloatRange(min=0, min_open=True),
    default=40.0,
    show_default=True,
    help="Mean number of later arrivals a gang holds its GPUs for.",
)
@click.option(
    "--fill",
    type=click.FloatRange(min=0, max=1, max_open=True),
    default=0.5,
    show_default=True,
    help="Share of the GPUs allocated at random before the gangs arrive.",
)
@seeds_option()
@rows_options
def dra(
    session: Session,
    files: tuple[str, ...],
    cluster: str | None,
    gang_attributes: tuple[str, ...],
    policies: tuple[str, ...],
    node_count: int,
    gangs: int,
    hold: float,
    fill: float,
    seeds: tuple[list[int], ...],
    fmt: str | None,
    output_file: str | None,
) -> None:
    """Offer a SYNTHETIC stream of gangs with DRA claims to a fragmented cluster, one row
    per policy and seed (gangs allocated, aligned share, allocated-and-aligned share); or,
    with -f and --cluster, give one workload's pods the devices of a dump and print per
    pod the node, devices and constraints kept, or why it does not fit.
    """
    from wlmap.app import dra_simulation as run  # noqa: PLC0415 - loads CEL

    if files:
        if cluster is None:
            raise click.UsageError("with -f, give the devices with --cluster FILE")
        items = run.place_workload_claims(
            session.workloads(files),
            session.files(files),
            cluster,
            policies,
            gang_attributes,
            session.output.warn,
        )
        fmt = fmt or "yaml"
        if fmt == "csv":
            text = render_rows(run.workload_rows(items), "csv")
        else:
            text = session.output.format({"items": items, "count": len(items)}, fmt)
        write_output(session, text, output_file)
        return
    if cluster is not None:
        raise click.UsageError("--cluster needs a workload: give it with -f")
    session.output.warn(
        f"SYNTHETIC cluster: {node_count} nodes x 8 GPUs, {fill:.0%} allocated at random, "
        f"{gangs} gangs of 1-4 pods with 1-4 GPUs each"
    )
    rows = run.simulate_claims(
        policies,
        sorted({s for group in seeds for s in group}) or [42],
        nodes=node_count,
        gangs=gangs,
        hold=hold,
        fill=fill,
    )
    fmt = fmt or "csv"
    text = (
        render_rows(rows, fmt)
        if fmt != "yaml"
        else session.output.format({"items": rows, "count": len(rows)}, fmt)
    )
    write_output(session, text, output_file)
