"""``wlmap plan``: where a workload's gangs would go on a cluster now, or why they would not.

Nothing heavy is imported here: the topology engine (numpy) and the policies load inside
the command when it runs.
"""

from __future__ import annotations

import click

from wlmap.cli._session import Session
from wlmap.cli.commands._base import command, file_option, levels_option
from wlmap.schedulers import PLAN_RENDERS

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
    from wlmap.cli.commands import _plan_output as show  # noqa: PLC0415 - loads the engine
    from wlmap.cli.commands import _plan_run as run  # noqa: PLC0415

    if bool(target) == bool(files):
        raise click.UsageError("give the workload as TYPE/NAME or with -f FILE (one of them)")
    if target and "/" not in target:
        raise click.UsageError(f"expected TYPE/NAME, got {target!r}")
    chosen = run.policy_factory(policy, objective)
    found = run.workloads(session, files, target, namespace)
    sources = [("dump", c) for c in clusters] + [("context", c) for c in contexts]
    if not sources:
        sources = [("context", session.context or "")]
    ranked = run.plan_clusters(session, sources, levels, found, chosen)
    if render:
        session.output.document(run.rendered(session, ranked[0], render), fmt or "yaml")
    elif fmt in ("json", "yaml"):
        session.output.document(show.document(ranked), fmt)
    else:
        session.output.data(show.table(ranked))
