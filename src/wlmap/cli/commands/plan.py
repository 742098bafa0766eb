"""``wlmap plan``: where a workload's gangs would go on a cluster now, or why they would not.

Nothing heavy is imported here: the topology engine (numpy) and the policies load inside
the command when it runs.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import click

from wlmap.cli._session import Session
from wlmap.cli.commands._base import command, file_option, levels_option
from wlmap.schedulers import PLAN_RENDERS

if TYPE_CHECKING:
    from wlmap.app.plan import ClusterSource
    from wlmap.sources.workloads import Found

SHORT_HELP = "Where a workload's gangs would go on a cluster now, or why not."
RENDER_CHOICES = tuple(PLAN_RENDERS)


@command("plan", short_help=SHORT_HELP)
@click.argument("target", metavar="[TYPE/NAME]", required=False)
@file_option(required=False, help="The workload to plan (instead of TYPE/NAME on the cluster).")
@click.option(
    "--cluster",
    "clusters",
    multiple=True,
    metavar="FILE",
    type=click.Path(dir_okay=False, allow_dash=True),
    help="A `kubectl get nodes,pods -A -o yaml` dump (repeatable: clusters are ranked).",
)
@click.option(
    "--context",
    "contexts",
    multiple=True,
    metavar="NAME",
    help="A kubeconfig context whose cluster is read live (repeatable: clusters are ranked).",
)
@levels_option(
    required=True,
    metavar="KEY,KEY[,kubernetes.io/hostname]",
    help="Node-label keys of the topology levels, coarsest first.",
)
@click.option("-n", "--namespace", help="Namespace of TYPE/NAME (default: the context's).")
@click.option(
    "--policy",
    default="wlmap",
    show_default=True,
    metavar="NAME",
    help="The gang policy by name (wlmap, kueue-bestfit, kai, volcano, ...; a wrong name lists them).",
)
@click.option(
    "--objective",
    metavar="FILE",
    type=click.Path(dir_okay=False),
    help="An objective file for the policies that read one (wlmap's).",
)
@click.option(
    "--render",
    type=click.Choice(RENDER_CHOICES),
    help="Print the decision as node-affinity patches, Kueue or KAI annotations, or the "
    "Workload API objects (for the first-ranked cluster).",
)
@click.option(
    "-o",
    "--output",
    "fmt",
    type=click.Choice(["table", "json", "yaml"]),
    help="Output format.  [default: table; yaml with --render]",
)
def plan(
    session: Session,
    target: str | None,
    files: tuple[str, ...],
    clusters: tuple[str, ...],
    contexts: tuple[str, ...],
    levels: list[str],
    namespace: str | None,
    policy: str,
    objective: str | None,
    render: str | None,
    fmt: str | None,
) -> None:
    """Plan the gangs of a workload (-f FILE, or TYPE/NAME read from the cluster) on one or
    more clusters: dumps (--cluster) or live contexts (--context; the current one when
    neither is given). Each gang is placed with the policy on the free GPUs the running
    pods leave: its Kueue-style topology assignment, nodes and reason, or why it does not
    fit (the binding level and resource, and whose pods finishing would make room).
    """
    from wlmap.app import plan as run  # noqa: PLC0415 - loads the engine
    from wlmap.cli.commands import _plan_output as show  # noqa: PLC0415

    if bool(target) == bool(files):
        raise click.UsageError("give the workload as TYPE/NAME or with -f FILE (one of them)")
    if target and "/" not in target:
        raise click.UsageError(f"expected TYPE/NAME, got {target!r}")
    known = run.gang_policies()
    if policy not in known:
        raise click.BadParameter(
            f"unknown gang policy {policy!r}; expected one of: {', '.join(known)}",
            param_hint="--policy",
        )
    chosen = run.policy_factory(policy, objective)
    found = _workloads(session, files, target, namespace)
    sources = _sources(session, clusters, contexts or ([] if clusters else [session.context or ""]))
    ranked = run.plan_clusters(sources, levels, found, chosen, session.output.warn)
    if render:
        rendered = run.rendered(ranked[0], render, session.output.warn)
        session.output.document(rendered, fmt or "yaml")
    elif fmt in ("json", "yaml"):
        session.output.document(show.document(ranked), fmt)
    else:
        session.output.data(show.table(ranked))


def _workloads(
    session: Session, files: Sequence[str], target: str | None, namespace: str | None
) -> list[Found]:
    """The workloads to plan: the files' top-level ones, or TYPE/NAME read live.

    Raises:
        WorkloadNotFoundError: the named workload is not there.
    """
    if files:
        return session.workloads(files)
    from wlmap.app.live import Request  # noqa: PLC0415 - live mode only
    from wlmap.errors import WorkloadNotFoundError  # noqa: PLC0415

    assert target is not None
    token, name = target.split("/", 1)
    live = session.live_read(Request(token, name, namespace))
    gvk = live.gvk
    found = [
        f
        for f in session.read(live.manifests, pods_listed=live.pods_listed).found
        if f.view.name == name and (gvk is None or (f.view.kind == gvk.kind and f.top_level))
    ]
    if not found:
        raise WorkloadNotFoundError(f"{target} is not in the cluster")
    return found


def _sources(
    session: Session, dumps: Sequence[str], contexts: Sequence[str]
) -> list[ClusterSource]:
    """The clusters to plan on: dumps first, then live contexts ("" the current one)."""
    from wlmap.app.plan import ClusterSource  # noqa: PLC0415 - loads the engine
    from wlmap.app.plan_inputs import cluster_from_context  # noqa: PLC0415

    def dump(path: str) -> ClusterSource:
        return ClusterSource(path, lambda: session.files([path]))

    def live(context: str) -> ClusterSource:
        name = f"context {context}" if context else "current context"
        return ClusterSource(
            name,
            lambda: cluster_from_context(session.kubeconfig, context or None, session.output.warn),
        )

    return [*map(dump, dumps), *map(live, contexts)]
