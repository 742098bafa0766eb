"""``wlmap metrics``: the Prometheus series of the workloads, nodes and GPU usage in files
or dumps (``-f``), as the exporter serves them from a cluster."""

from __future__ import annotations

import click

from wlmap.cli._session import Session
from wlmap.cli.commands._base import command, file_option

SHORT_HELP = "Prometheus metrics of workloads, nodes and GPU usage (files, or served)."


@command("metrics", cls=click.Group, invoke_without_command=True, short_help=SHORT_HELP)
@file_option(required=False, help="Manifests or dumps to read (YAML, JSON, List dumps).")
@click.option(
    "--team-label",
    default="team",
    show_default=True,
    metavar="KEY",
    help="Label key naming a workload's team (the workload's, else its namespace's).",
)
@click.option(
    "--domain-key",
    "domain_keys",
    multiple=True,
    metavar="KEY",
    help="Node label key written as a label of the node series (repeatable; default: "
    "topology.kubernetes.io/zone and nvidia.com/gpu.clique).",
)
def metrics(
    session: Session, files: tuple[str, ...], team_label: str, domain_keys: tuple[str, ...]
) -> None:
    """Print the Prometheus exposition (text format 0.0.4) of the workloads in files.

    With -f, every top-level workload with its pods (matched as describe matches them),
    every node and namespace the files hold; the series and their meaning are listed in
    docs/metrics.md.
    """
    context = click.get_current_context()
    if context.invoked_subcommand is not None:
        return
    if not files:
        raise click.UsageError("give -f FILE|DIR to print the series of files")
    from wlmap.metrics.files import index_files  # noqa: PLC0415 - loaded when run

    index = index_files(
        session.reading,
        files,
        team_label=team_label,
        domain_keys=domain_keys or None,
    )
    session.output.data(index.render().rstrip("\n"))
