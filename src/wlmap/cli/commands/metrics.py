"""``wlmap metrics``: the Prometheus series of the workloads, nodes and GPU usage in files
or dumps (``-f``), as the exporter serves them from a cluster."""

from __future__ import annotations

import click

from wlmap.cli._session import Session
from wlmap.cli.commands._base import command, file_option

SHORT_HELP = "Prometheus metrics of workloads, nodes and GPU usage (files, or served)."

# the options that say what a series carries, the same for files and for a served cluster
_team_label = click.option(
    "--team-label",
    default="team",
    show_default=True,
    metavar="KEY",
    help="Label key naming a workload's team (the workload's, else its namespace's).",
)
_domain_keys = click.option(
    "--domain-key",
    "domain_keys",
    multiple=True,
    metavar="KEY",
    help="Node label key written as a label of the node series (repeatable; default: "
    "topology.kubernetes.io/zone and nvidia.com/gpu.clique).",
)


@command("metrics", cls=click.Group, invoke_without_command=True, short_help=SHORT_HELP)
@file_option(required=False, help="Manifests or dumps to read (YAML, JSON, List dumps).")
@_team_label
@_domain_keys
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


@command("serve", short_help="Serve the series of a live cluster on /metrics.")
@click.option(
    "--port",
    type=click.IntRange(0, 65535),
    default=9402,
    show_default=True,
    help="Port of /metrics and /healthz (0: a free one, printed on start).",
)
@click.option(
    "--namespaces",
    metavar="NS[,NS...]",
    default="",
    help="Serve only these namespaces (comma-separated; default: every namespace).",
)
@click.option(
    "--namespace-selector",
    metavar="SELECTOR",
    default=None,
    help="Serve the namespaces this label selector picks (e.g. team=vision).",
)
@_team_label
@_domain_keys
@click.option(
    "--checkpoint-namespace",
    default="wlmap-system",
    show_default=True,
    metavar="NS",
    help="Namespace of the ConfigMap keeping deleted pods' GPU-seconds across restarts "
    "('' for none).",
)
def serve(
    session: Session,
    port: int,
    namespaces: str,
    namespace_selector: str | None,
    team_label: str,
    domain_keys: tuple[str, ...],
    checkpoint_namespace: str,
) -> None:
    """Serve the series of a live cluster on /metrics, kept current by watches.

    Read-only: it lists and watches the workload kinds, pods, DRA claims, nodes and
    namespaces (deploy/metrics/rbac.yaml grants exactly that); it writes only its checkpoint
    ConfigMap.
    """
    from wlmap.metrics.exporter import ExporterSettings  # noqa: PLC0415 - loaded when run
    from wlmap.metrics.exporter import serve as serve_metrics  # noqa: PLC0415
    from wlmap.metrics.node_series import DEFAULT_DOMAIN_KEYS  # noqa: PLC0415
    from wlmap.sources.selectors import parse_selector  # noqa: PLC0415

    listed = tuple(n.strip() for n in namespaces.split(",") if n.strip())
    if listed and namespace_selector:
        raise click.UsageError("give --namespaces or --namespace-selector, not both")
    if namespace_selector:
        try:
            parse_selector(namespace_selector)
        except ValueError as exc:
            raise click.BadParameter(str(exc), param_hint="--namespace-selector") from None
    settings = ExporterSettings(
        port=port,
        namespaces=listed,
        selector=namespace_selector,
        team_label=team_label,
        domain_keys=domain_keys or DEFAULT_DOMAIN_KEYS,
        checkpoint_namespace=checkpoint_namespace or None,
    )

    def listening(bound: int) -> None:
        click.echo(f"serving metrics on :{bound}/metrics", err=True)

    session.cluster.run(lambda connected: serve_metrics(connected, settings, listening))


assert isinstance(metrics, click.Group)  # declared with cls=click.Group above
metrics.add_command(serve)
