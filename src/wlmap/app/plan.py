"""Planning (``wlmap plan``): the workloads' gangs placed on each cluster, the clusters
ranked, and the decision in a scheduler's form.

Nothing here is imported before a plan runs (numpy and the policies load on first use).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from wlmap.app.plan_inputs import Attribution
from wlmap.errors import PlacementInputError
from wlmap.placement.feed import WorkloadGang, gang_requests
from wlmap.placement.gangs import GANG_POLICIES, GangPolicy, Topology, make_gang_policy
from wlmap.placement.plan import (
    CLUSTER,
    ClusterPlan,
    GangPlan,
    level_word,
    plan_gangs,
    rank_clusters,
    read_occupancy,
)
from wlmap.schedulers import PLAN_RENDERS, PlanInput
from wlmap.sources.inventory import uid_of
from wlmap.sources.manifests import Manifest
from wlmap.sources.workloads import Found

__all__ = [
    "CLUSTER",
    "ClusterSource",
    "GangPlan",
    "Planned",
    "Topology",
    "gang_policies",
    "level_word",
    "own_uids",
    "plan_clusters",
    "plan_document",
    "policy_factory",
    "rendered",
]

Warn = Callable[[str], None]


@dataclass(frozen=True)
class ClusterSource:
    """A cluster to plan on: its name in the plan, and how its objects are read (when its
    turn comes, so that its warnings follow the clusters before it)."""

    name: str
    read: Callable[[], list[Manifest]]


@dataclass(frozen=True)
class Planned:
    """One cluster's plan, with each workload's share of the gang plans."""

    cluster: ClusterPlan
    by_workload: tuple[tuple[Found, tuple[GangPlan, ...]], ...]


def gang_policies() -> list[str]:
    """The gang policies a plan can use, by name."""
    return list(GANG_POLICIES)


def policy_factory(name: str, objective: str | None) -> Callable[[], GangPolicy]:
    """A maker of fresh policies of that name (one per cluster; see :func:`gang_policies`)."""
    make_gang_policy(name, objective=objective)  # a bad objective file fails before reading
    return lambda: make_gang_policy(name, objective=objective)


def own_uids(found: Sequence[Found]) -> set[str]:
    """The uids of the planned workloads: their own running pods are not counted."""
    return {uid for f in found if (uid := uid_of(f.manifest.obj)) is not None}


def _requests(warn: Warn, found: Sequence[Found]) -> list[tuple[Found, list[WorkloadGang]]]:
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
            warn(note)
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
        warn(f"{origin}: {message}; left out")
    return asked


def plan_clusters(
    sources: Sequence[ClusterSource],
    levels: Sequence[str],
    found: Sequence[Found],
    make_policy: Callable[[], GangPolicy],
    warn: Warn,
) -> list[Planned]:
    """Every cluster planned, best first; the planned workloads' own pods are not counted
    (the plan answers where they would go, not where they are).

    Raises:
        PlacementInputError: no workload has a gang to place.
    """
    asked = _requests(warn, found)
    own = own_uids([item for item, _ in asked])
    planned: dict[str, Planned] = {}
    for source in sources:
        manifests, name = source.read(), source.name
        attribution = Attribution(manifests)
        occupancy = read_occupancy(
            [m.obj for m in manifests],
            levels,
            attribution.owner_of,
            name=name,
            skip=attribution.skipper(own),
        )
        for warning in occupancy.warnings:
            warn(warning)
        policy = make_policy()
        shares = tuple(
            (item, tuple(plan_gangs(occupancy, requests, policy, file=item.manifest.origin)))
            for item, requests in asked
        )
        cluster = ClusterPlan(occupancy, tuple(p for _, plans in shares for p in plans))
        planned[name] = Planned(cluster, shares)
    order = rank_clusters([p.cluster for p in planned.values()])
    return [planned[c.name] for c in order]


def rendered(planned: Planned, render: str, warn: Warn) -> dict[str, Any]:
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
            warn(f"{entry['workload']}: no {render} patch: {entry['error']}")
    if form.as_list:
        return {"apiVersion": "v1", "kind": "List", "items": items}
    return {"cluster": planned.cluster.name, "items": items}


def plan_document(ranked: Sequence[Planned]) -> dict[str, Any]:
    """Every cluster's plan as JSON/YAML data, best first (``plan -o json``, the web page)."""
    items = []
    for rank, planned in enumerate(ranked, 1):
        cluster = planned.cluster
        occupancy = cluster.occupancy
        items.append(
            {
                "cluster": cluster.name,
                "rank": rank,
                "fits": cluster.fits,
                "gangs": len(cluster.plans),
                "placedGangs": cluster.placed,
                "cost": None if cluster.cost is None else round(cluster.cost, 4),
                "nodes": len(occupancy.topology.nodes),
                "gpus": int(occupancy.topology.gpus.sum()),
                "freeGpusAfter": cluster.free_gpus,
                "pending": [
                    {"workload": p.workload, "pod": p.name, "gpus": p.gpus}
                    for p in occupancy.pending
                ],
                "plans": [p.to_dict(occupancy.topology) for p in cluster.plans],
            }
        )
    return {"items": items, "count": len(items)}
