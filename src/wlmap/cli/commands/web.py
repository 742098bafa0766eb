"""``wlmap web``: serve the read-only web page for files and dumps (``-f``), or for the
current kubeconfig context, kept current by watches (optionally behind ``--auth``)."""

from __future__ import annotations

from collections.abc import Callable

import click

from wlmap.cli._session import Session
from wlmap.cli.commands._base import command, file_option, levels_option

SHORT_HELP = "Serve a read-only web page of the workloads, cluster and simulations."


@command("web", short_help=SHORT_HELP)
@file_option(
    required=False,
    help="Manifests, folders or dumps of workloads (and of nodes and pods); "
    "without it, the cluster of the current kubeconfig context, updated live.",
)
@click.option("--address", default="127.0.0.1", show_default=True, help="Address to bind.")
@click.option("--port", type=click.IntRange(0, 65535), default=8080, show_default=True)
@levels_option(
    required=False,
    help="Node-label keys of the topology levels, coarsest first (Cluster and Waiting pages).",
)
@click.option(
    "--cluster",
    metavar="FILE",
    type=click.Path(dir_okay=False),
    help="A `kubectl get nodes,pods -A -o yaml` dump to map and plan on (default: -f's).",
)
@click.option(
    "--trace-nodes", metavar="FILE", type=click.Path(dir_okay=False), help="An openb node list CSV."
)
@click.option(
    "--trace-pods",
    metavar="FILE",
    type=click.Path(dir_okay=False),
    help="An openb pod list CSV placed on --trace-nodes.",
)
@click.option(
    "--policy", default="fgd", show_default=True, help="The packing policy placing --trace-pods."
)
@click.option(
    "--simulation",
    "simulations",
    multiple=True,
    metavar="FILE",
    type=click.Path(dir_okay=False),
    help="A CSV written by `wlmap simulate` or `wlmap simulate gangs` (repeatable).",
)
@click.option(
    "--auth",
    is_flag=True,
    help="Live mode in a cluster: every request needs a bearer token (TokenReview) and "
    "sees only the namespaces and kinds its user may list (SubjectAccessReview).",
)
def web(
    session: Session,
    files: tuple[str, ...],
    address: str,
    port: int,
    levels: list[str],
    cluster: str | None,
    trace_nodes: str | None,
    trace_pods: str | None,
    policy: str,
    simulations: tuple[str, ...],
    auth: bool,
) -> None:
    """Serve the Workloads, Workload, Cluster, Waiting and Simulations pages on ADDRESS:PORT
    until interrupted. Read-only: the page only reads the files given, or watches the
    cluster. What cannot be read is shown on the page with its file and place."""
    from wlmap.web import FileSource, Inputs, serve  # noqa: PLC0415 - loaded when run

    def ready(url: str) -> None:
        session.output.warn(f"serving {url} (Ctrl-C to stop)")
        session.output.flush()

    if bool(trace_nodes) != bool(trace_pods):
        raise click.UsageError("give --trace-nodes and --trace-pods together")
    if not files:
        if cluster or trace_nodes or simulations:
            raise click.UsageError("--cluster, --trace-* and --simulation read files: give -f")
        _serve_live(session, address, port, auth, ready)
        return
    if auth:
        raise click.UsageError("--auth checks access to a cluster: leave out -f")
    source = FileSource(
        Inputs(
            files=files,
            definitions=tuple(session.definition_sources),
            levels=tuple(levels),
            cluster=cluster,
            trace_nodes=trace_nodes,
            trace_pods=trace_pods,
            policy=policy,
            simulations=simulations,
        )
    )
    source.workloads()  # read before listening: the first page is then quick
    serve(source, address, port, ready=ready)


def _serve_live(
    session: Session, address: str, port: int, auth: bool, ready: Callable[[str], None]
) -> None:
    from wlmap.web import ClusterSource, Guard, serve  # noqa: PLC0415 - loaded when run

    source = ClusterSource(session.cluster).start()
    try:
        guard = Guard(source.ask, source.plural) if auth else None
        serve(source, address, port, ready=ready, guard=guard)
    finally:
        source.stop()
