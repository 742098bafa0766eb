"""``python -m wlmap.operator`` (and ``wlmap-operator``): run the operator."""

from __future__ import annotations

import asyncio
import logging
import os
import sys
from collections.abc import Sequence

import click
import kopf

from wlmap.errors import WlmapError
from wlmap.operator.core.scope import NEVER_SERVED_KINDS, NOT_TOP_LEVEL_KINDS
from wlmap.operator.core.settings import SYNC_TARGETS, Settings, parse_kinds
from wlmap.operator.runtime.handlers import register
from wlmap.operator.runtime.state import State
from wlmap.sources.cluster import Cluster, discover, read_stored


async def _stored(settings: Settings, state: State) -> None:
    """Read the cluster's definitions before the handlers are registered, so that kinds
    only they cover are watched from the start."""
    cluster = await Cluster.connect(settings.kubeconfig, settings.context)
    try:
        stored = await read_stored(cluster, await discover(cluster))
        for definition, origin in stored.definitions:
            state.store.accept(origin, definition)
    finally:
        await cluster.close()


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "--target",
    type=click.Choice(SYNC_TARGETS),
    help="Scheduler whose gang objects to keep [env WLMAP_TARGET].",
)
@click.option(
    "-n",
    "--namespace",
    "namespaces",
    multiple=True,
    help="Serve these namespaces [env WLMAP_NAMESPACES].",
)
@click.option(
    "--namespace-selector",
    metavar="SELECTOR",
    help="Serve namespaces with these labels; default wlmap.dev/serve=true when no "
    "namespace is listed [env WLMAP_NAMESPACE_SELECTOR].",
)
@click.option(
    "--workload-selector",
    metavar="SELECTOR",
    help="Serve only workloads with these labels [env WLMAP_WORKLOAD_SELECTOR].",
)
@click.option(
    "--leader-elect",
    is_flag=True,
    default=None,
    help="Elect a leader among replicas: only the holder of a Lease writes "
    "[env WLMAP_LEADER_ELECT].",
)
@click.option("--kubeconfig", metavar="FILE", help="Kubeconfig [env KUBECONFIG].")
@click.option("--context", metavar="NAME", help="Kubeconfig context [env WLMAP_CONTEXT].")
@click.option(
    "--health",
    metavar="URL",
    help="Liveness endpoint, e.g. http://0.0.0.0:8080/healthz [env WLMAP_HEALTH].",
)
@click.option(
    "--metrics-port",
    type=int,
    default=None,
    help="Serve Prometheus metrics on this port (0: off, the default) [env WLMAP_METRICS_PORT].",
)
@click.option(
    "--log-format",
    type=click.Choice(["json", "plain"]),
    help="Log line format [env WLMAP_LOG_FORMAT].",
)
def main(
    target: str | None,
    namespaces: Sequence[str],
    namespace_selector: str | None,
    workload_selector: str | None,
    leader_elect: bool | None,
    kubeconfig: str | None,
    context: str | None,
    health: str | None,
    log_format: str | None,
    metrics_port: int | None,
) -> None:
    """Keep gang-scheduling objects (KAI, Volcano, Workload API) for every mapped workload."""
    try:
        base = Settings.from_environment()
        settings = Settings(
            target=target or base.target,
            namespaces=tuple(namespaces) or base.namespaces,
            namespace_selector=namespace_selector or base.namespace_selector,
            workload_selector=workload_selector or base.workload_selector,
            operator_namespace=base.operator_namespace,
            leader_elect=base.leader_elect if leader_elect is None else leader_elect,
            lease_namespace=base.lease_namespace,
            lease_seconds=base.lease_seconds,
            kubeconfig=kubeconfig or base.kubeconfig,
            context=context or base.context,
            health=health or base.health,
            log_json=(log_format or ("json" if base.log_json else "plain")) == "json",
            kinds=base.kinds,
            cached_reads=base.cached_reads,
            placement=base.placement,
            placement_levels=base.placement_levels,
            placement_policy=base.placement_policy,
            webhook=base.webhook,
            webhook_managed=base.webhook_managed,
            metrics_port=base.metrics_port if metrics_port is None else metrics_port,
        )
        if settings.placement:  # a wrong policy name is told at start, with the known ones
            from wlmap.placement.gangs import make_gang_policy  # noqa: PLC0415 - numpy, when on

            make_gang_policy(settings.placement_policy)
    except (ValueError, KeyError) as exc:
        raise click.UsageError(str(exc).strip("'\"")) from exc
    kopf.configure(
        log_format=kopf.LogFormat.JSON if settings.log_json else kopf.LogFormat.PLAIN, verbose=False
    )
    if kubeconfig:
        os.environ["KUBECONFIG"] = kubeconfig  # kopf's own login reads it
    logging.getLogger("httpx").setLevel(logging.WARNING)  # one line per request otherwise
    state = State(settings)
    try:
        asyncio.run(_stored(settings, state))
    except WlmapError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(7)
    kinds = state.store.kinds() - NOT_TOP_LEVEL_KINDS - NEVER_SERVED_KINDS
    served = {f"{kind}.{group}".lower() for group, kind in kinds}
    # kinds named ahead of their definitions: watched now, reconciled once one arrives
    kinds |= {
        (group, kind)
        for group, kind in parse_kinds(settings.kinds)
        if f"{kind}.{group}".lower() not in served
    }
    registry = kopf.OperatorRegistry()
    register(registry, state, kinds)
    scope = settings.scope
    logging.getLogger("wlmap.operator").info(
        "serving %d kinds for target %s in namespaces %s",
        len(kinds),
        settings.target,
        " and ".join(
            part
            for part in (
                ", ".join(sorted(scope.namespaces)),
                f"labelled {settings.effective_namespace_selector}"
                if settings.effective_namespace_selector
                else "",
            )
            if part
        ),
    )
    kopf.run(
        registry=registry,
        standalone=True,
        clusterwide=not scope.namespaces,
        namespaces=sorted(scope.namespaces),
        liveness_endpoint=settings.health,
    )


if __name__ == "__main__":
    main()
