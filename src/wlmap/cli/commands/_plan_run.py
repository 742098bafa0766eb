"""What ``wlmap plan`` runs: read the workloads and clusters, plan, rank, and present.

Kept apart from the command so that the command module stays a list of options; nothing
here is imported before the command runs (numpy and the policies load on first use).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import click

from wlmap.cli._session import Session
from wlmap.cli.commands._plan_inputs import (
    Attribution,
    cluster_from_context,
    cluster_from_dump,
    workloads_live,
)
from wlmap.errors import PlacementInputError, WorkloadNotFoundError
from wlmap.placement.plan import (
    ClusterPlan,
    GangPlan,
    plan_gangs,
    rank_clusters,
    read_occupancy,
)
from wlmap.placement.topology import GangPolicy
from wlmap.placement.topology.registry import GANG_POLICIES, make_gang_policy
from wlmap.placement.topology.workload_gangs import WorkloadGang, gang_requests
from wlmap.schedulers import PLAN_RENDERS, PlanInput
from wlmap.sources.inventory import uid_of
from wlmap.sources.workloads import Found

__all__ = [
    "Planned",
    "own_uids",
    "plan_clusters",
    "policy_factory",
    "rendered",
    "workloads",
]


@dataclass(frozen=True)
class Planned:
    """One cluster's plan, with each workload's share of the gang plans."""

    cluster: ClusterPlan
    by_workload: tuple[tuple[Found, tuple[GangPlan, ...]], ...]


def policy_factory(name: str, objective: str | None) -> Callable[[], GangPolicy]:
    """A maker of fresh policies of that name (one per cluster).

    Raises:
        click.BadParameter: no policy has that name (the message lists them).
    """
    if name not in GANG_POLICIES:
        raise click.BadParameter(
            f"unknown gang policy {name!r}; expected one of: {', '.join(GANG_POLICIES)}",
            param_hint="--policy",
        )
    make_gang_policy(name, objective=objective)  # a bad objective file fails before reading
    return lambda: make_gang_policy(name, objective=objective)


def workloads(
    session: Session, files: Sequence[str], target: str | None, namespace: str | None
) -> list[Found]:
    """The workloads to plan: the files' top-level ones, or TYPE/NAME read live.

    Raises:
        WorkloadNotFoundError: the named workload is not there.
    """
    if files:
        return session.workloads(files)
    assert target is not None
    token, name = target.split("/", 1)
    found = workloads_live(session, token, name, namespace)
    if not found:
        raise WorkloadNotFoundError(f"{target} is not in the cluster")
    return found


def own_uids(found: Sequence[Found]) -> set[str]:
    """The uids of the planned workloads: their own running pods are not counted."""
    return {uid for f in found if (uid := uid_of(f.manifest.obj)) is not None}


def _requests(session: Session, found: Sequence[Found]) -> list[tuple[Found, list[WorkloadGang]]]:
    """Each workload's gangs; workloads without any are left out with a warning, and an
    error when none has one."""
    asked = []
    problems = []
    for item in found:
        metadata = item.manifest.obj.get("metadata") or {}
        notes: list[str] = []
        origin = item.manifest.origin
        requests = gang_requests(
            item.view, annotations=metadata.get("annotations"), file=origin, warnings=notes
        )
        for note in notes:
            session.output.warn(note)
        if requests:
            asked.append((item, requests))
            continue
        view = item.view
        workload = f"{view.kind} {view.namespace or 'default'}/{view.name or '(generated name)'}"
        why = (
            "no gang of pods that take whole GPUs (see the warnings for what was left out)"
            if view.gang_groups
            else "no gang: its definition declares none and its GPU pods carry no topology intent"
        )
        problems.append((origin, f"{workload}: {why}; a plan places gangs"))
    if not asked:
        origin, message = problems[0] if problems else ("-f", "no workload to place")
        raise PlacementInputError(message, file=origin, row=None, column=None)
    for origin, message in problems:
        session.output.warn(f"{origin}: {message}; left out")
    return asked


def plan_clusters(
    session: Session,
    sources: Sequence[tuple[str, str]],
    levels: Sequence[str],
    found: Sequence[Found],
    make_policy: Callable[[], GangPolicy],
) -> list[Planned]:
    """Every cluster planned, best first; the planned workloads' own pods are not counted
    (the plan answers where they would go, not where they are)."""
    asked = _requests(session, found)
    own = own_uids([item for item, _ in asked])
    planned: dict[str, Planned] = {}
    for kind, where in sources:
        if kind == "dump":
            manifests, name = cluster_from_dump(session, where), where
        else:
            manifests = cluster_from_context(session, where or None)
            name = f"context {where}" if where else "current context"
        attribution = Attribution(manifests)
        occupancy = read_occupancy(
            [m.obj for m in manifests],
            levels,
            attribution.owner_of,
            name=name,
            skip=attribution.skipper(own),
        )
        for warning in occupancy.warnings:
            session.output.warn(warning)
        policy = make_policy()
        shares = tuple(
            (item, tuple(plan_gangs(occupancy, requests, policy, file=item.manifest.origin)))
            for item, requests in asked
        )
        cluster = ClusterPlan(occupancy, tuple(p for _, plans in shares for p in plans))
        planned[name] = Planned(cluster, shares)
    order = rank_clusters([p.cluster for p in planned.values()])
    return [planned[c.name] for c in order]


def rendered(session: Session, planned: Planned, render: str) -> dict[str, Any]:
    """The decision on the first-ranked cluster in one scheduler's form."""
    form = PLAN_RENDERS[render]
    topology = planned.cluster.occupancy.topology
    items: list[dict[str, Any]] = []
    for item, plans in planned.by_workload:
        view = item.view
        workload = f"{view.kind} {view.namespace or 'default'}/{view.name}"
        given = PlanInput(item.entry.definition, item.manifest.obj, view, plans, topology, workload)
        items.extend(form.render(given))
    for entry in items:
        if "error" in entry:
            session.output.warn(f"{entry['workload']}: no {render} patch: {entry['error']}")
    if form.as_list:
        return {"apiVersion": "v1", "kind": "List", "items": items}
    return {"cluster": planned.cluster.name, "items": items}
