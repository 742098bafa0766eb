"""``wlmap simulate``: place a trace or workloads on a cluster with each policy; ``plot`` it.

Nothing heavy is imported here: the placement engine (numpy), the bound (HiGHS) and the
plots (matplotlib) load inside the command when it runs.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import click

from wlmap.cli._session import Session
from wlmap.cli.commands._base import command, file_option, output_option
from wlmap.cli.commands._simulate_options import (
    output_file_option,
    render_rows,
    seeds_option,
    write_output,
)
from wlmap.cli.commands.simulate_dra import dra
from wlmap.cli.commands.simulate_gangs import gangs
from wlmap.errors import PlacementInputError

SHORT_HELP = "Place a trace or workloads on a cluster with each policy; plot the results."


@command(
    "simulate",
    cls=click.Group,
    invoke_without_command=True,
    short_help=SHORT_HELP,
)
@click.option(
    "--nodes",
    metavar="FILE",
    type=click.Path(dir_okay=False),
    help="The cluster: an openb node CSV or a Kubernetes node list (kubectl get nodes -o yaml).",
)
@click.option(
    "--pods", metavar="FILE", type=click.Path(dir_okay=False), help="An openb pod list CSV."
)
@file_option(required=False)
@click.option(
    "--policy",
    "policies",
    multiple=True,
    metavar="NAME",
    help="A policy to run (repeatable): a registered name, 'bound' for the offline upper "
    "bound, or 'all' (the default).",
)
@seeds_option("42-51")
@click.option(
    "--ratio",
    type=click.FloatRange(min=0, min_open=True),
    default=1.3,
    show_default=True,
    help="Arrivals as a multiple of the GPU capacity (pods sampled until reached).",
)
@click.option(
    "--placements/--allocation",
    "placements",
    default=None,
    help="Report where each pod went (each placed once, in input order; the default with -f) "
    "or the allocation per arrived share (the default with --pods).",
)
@click.option("--trace", metavar="NAME", help="Label of the trace column (default: from --pods).")
@output_option("csv", "json", default="csv")
@output_file_option()
def simulate(
    session: Session,
    nodes: str | None,
    pods: str | None,
    files: tuple[str, ...],
    policies: tuple[str, ...],
    seeds: tuple[list[int], ...],
    ratio: float,
    placements: bool | None,
    trace: str | None,
    fmt: str,
    output_file: str | None,
) -> None:
    """Place pods on a cluster with each policy and seed, as the FGD experiments do.

    With --pods, the openb trace is topped up to --ratio times the GPU capacity by seeded
    sampling, shuffled with the seed, and placed pod by pod; one row per policy, seed and
    arrived percent. With -f, the pods of the workloads in the files (any kind wlmap maps)
    are placed once each; one row per pod with its node and GPUs.
    """
    if click.get_current_context().invoked_subcommand is not None:
        return
    if nodes is None:
        raise click.UsageError("give the cluster with --nodes FILE")
    if bool(pods) == bool(files):
        raise click.UsageError("give the pods with --pods FILE or -f FILE (not both)")
    from wlmap.app import simulation as run  # noqa: PLC0415 - loads the engine

    names = _policies(policies)
    cluster = run.read_nodes(nodes)
    source = run.pod_source(
        cluster,
        pods=pods,
        workloads=lambda: session.workloads(files),
        trace=trace,
        warn=session.output.warn,
    )
    chosen = sorted({s for group in seeds for s in group}) or [42]
    if placements if placements is not None else bool(files):
        if run.BOUND in policies:
            session.output.warn("the bound has no placements; it is left out with --placements")
        names = [n for n in names if n != run.BOUND]
        rows = run.placement_rows(cluster, source, names, chosen)
    else:
        if not any(n.gpus for n in cluster):
            raise PlacementInputError(
                "no node has a GPU; the allocation is measured against the GPU capacity "
                "(--placements reports where the pods go)",
                file=nodes,
                row=None,
                column=None,
            )
        if not any(p.num_gpu for p in source.pods):
            raise PlacementInputError(
                "no pod asks for a GPU, so none can fill the GPU capacity "
                "(--placements reports where the pods go)",
                file=source.file or ", ".join(files),
                row=None,
                column=None,
            )
        rows = run.curve_rows(cluster, source, names, chosen, ratio)
    text = render_rows(rows, fmt)
    write_output(session, text, output_file)


def _policies(asked: Sequence[str]) -> list[str]:
    from wlmap.app.simulation import policy_names  # noqa: PLC0415 - loads numpy

    known = policy_names()
    if not asked or "all" in asked:
        return known
    unknown = [a for a in asked if a not in known]
    if unknown:
        raise click.BadParameter(
            f"unknown policy {unknown[0]!r}; expected one of: {', '.join([*known, 'all'])}",
            param_hint="'--policy'",
        )
    return list(dict.fromkeys(asked))


@command("plot", short_help="Plot GPU allocation against arrived share from simulate results.")
@click.argument("results", nargs=-1, required=True, type=click.Path(dir_okay=False))
@click.option(
    "--output-file",
    metavar="FILE",
    type=click.Path(dir_okay=False),
    help="Where to write; its suffix is replaced by .png and .svg (default: beside the first "
    "results file).",
)
def plot(session: Session, results: tuple[str, ...], output_file: str | None) -> None:
    """Plot the allocation per arrived share of each policy (mean over seeds, range shaded)
    with the offline bound and the ideal line, from one or more CSV files written by
    ``wlmap simulate``; writes a PNG and an SVG and prints their paths."""
    from wlmap.app.results import read_results  # noqa: PLC0415
    from wlmap.app.simulation import plot_results  # noqa: PLC0415 - loads matplotlib

    rows = [row for path in results for row in read_results(path)]
    stem = Path(output_file) if output_file else Path(results[0]).with_suffix("")
    for path in plot_results(rows, stem):
        session.output.data(str(path))


simulate.add_command(plot)  # type: ignore[attr-defined]  # a click.Group, made by cls above
simulate.add_command(gangs)  # type: ignore[attr-defined]  # a click.Group, made by cls above
simulate.add_command(dra)  # type: ignore[attr-defined]  # a click.Group, made by cls above
