"""Topology-aware gang placement (``wlmap simulate gangs``): the scenario, the simulated
runs, and one workload's gangs placed on a cluster.

Nothing here is imported before a simulation runs (numpy and the policies load on first
use).
"""

from __future__ import annotations

import csv
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from wlmap.app.simulation import Progress
from wlmap.errors import PlacementInputError
from wlmap.placement.feed import Intent, gang_requests, to_gang
from wlmap.placement.gangs import (
    GANG_POLICIES,
    HOSTNAME_LABEL,
    LINGJUN_LEVELS,
    JobMix,
    QueueMode,
    Scenario,
    describe,
    gb200,
    kueue_tas,
    lingjun,
    make_gang_policy,
    node_list,
    run_row,
    simulate_gangs,
    synthetic_jobs,
    tiresias,
    tiresias_durations,
)

if TYPE_CHECKING:
    from wlmap.sources.workloads import Found

__all__ = [
    "DEFAULT_POLICY",
    "assignment_items",
    "assignment_rows",
    "place_workload_gangs",
    "placing_policy",
    "policy_names",
    "scenario_of",
    "simulate_gang_mix",
    "simulation_rows",
]


def scenario_of(topology: str, levels: Sequence[str], blocks: int) -> Scenario:
    """The scenario a ``--topology`` value names: a built-in shape or a file.

    A ``.csv`` file is the Lingjun ``topo.csv`` (header ``ip,DSW,PSW,ASW``) or a Tiresias
    cluster spec (header ``num_switch,...``); any other file is a Kubernetes node list,
    grouped by ``levels``.

    Raises:
        PlacementInputError: the file is unreadable or bad, or a node list comes without
            ``levels``.
    """
    if topology == "gb200":
        return gb200(blocks)
    if topology == "kueue-tas":
        return kueue_tas()
    if topology == "n256g8":
        return tiresias()
    if topology == "lingjun":
        raise PlacementInputError(
            "lingjun is read from the dataset's data/topo.csv: give its path as --topology",
            file="lingjun",
            row=None,
            column=None,
        )
    if topology.endswith(".csv"):
        header = _header(topology)
        if set(LINGJUN_LEVELS) <= set(header):
            return lingjun(topology)
        return tiresias(topology)
    if not levels:
        raise PlacementInputError(
            "a node list needs its topology levels: give --levels KEY,KEY (coarsest first)",
            file=topology,
            row=None,
            column=None,
        )
    return node_list(topology, levels)


def _header(path: str) -> list[str]:
    try:
        with Path(path).open(encoding="utf-8-sig", newline="") as handle:
            return [h.strip() for h in next(csv.reader(handle), [])]
    except (OSError, UnicodeDecodeError) as exc:
        raise PlacementInputError(
            f"cannot read it: {exc}", file=path, row=None, column=None
        ) from None


DEFAULT_POLICY = "wlmap"


def placing_policy(asked: Sequence[str]) -> str:
    """The one policy that places a workload's gangs: the first asked, else wlmap's own.

    A build without wlmap's policy falls back to the first registered one.

    Raises:
        PlacementInputError: no policy is registered, or the one asked for is unknown.
    """
    if asked and "all" not in asked[:1]:
        return policy_names(asked[:1])[0]
    known = policy_names(())
    return DEFAULT_POLICY if DEFAULT_POLICY in known else known[0]


def policy_names(asked: Sequence[str]) -> list[str]:
    """The registered policies asked for; every one when none or ``all`` is asked.

    Raises:
        PlacementInputError: no policy is registered, or one asked for is unknown.
    """
    known = list(GANG_POLICIES)
    if not known:
        raise PlacementInputError(
            "no gang policy is available in this build", file="--policy", row=None, column=None
        )
    if not asked or "all" in asked:
        return known
    unknown = [a for a in asked if a not in known]
    if unknown:
        raise PlacementInputError(
            f"unknown gang policy {unknown[0]!r}; expected one of: {', '.join([*known, 'all'])}",
            file="--policy",
            row=None,
            column=None,
        )
    return list(dict.fromkeys(asked))


def simulation_rows(
    scenario: Scenario,
    policies: Sequence[str],
    loads: Sequence[float],
    seeds: Sequence[int],
    *,
    hours: float,
    queue: QueueMode,
    verify: bool,
    durations: str | None,
    objective: str | None = None,
) -> tuple[list[dict[str, Any]], list[str]]:
    """One result row per policy, load and seed, and the lines saying what was assumed."""
    sample = tiresias_durations(durations) if durations else ()
    mixes = {load: JobMix(load=load, hours=hours, durations=sample) for load in loads}
    notes = [scenario.describe(), describe(mixes[loads[0]], scenario)]
    assumed = "; ".join(scenario.assumptions)
    rows: list[dict[str, Any]] = []
    progress = Progress(len(policies) * len(loads) * len(seeds))
    for load, mix in mixes.items():
        for seed in seeds:
            jobs = synthetic_jobs(scenario, mix, seed)
            for name in policies:
                progress.step(f"{name} load {load:g} seed {seed}")
                policy = make_gang_policy(
                    name, seed=seed, weights=scenario.weights, objective=objective
                )
                run = simulate_gangs(
                    scenario, policy, jobs, hours=hours, queue=queue, verify=verify
                )
                row = run_row(run, seed=seed, load=load, level=scenario.topology.levels[-1])
                row["policy"] = name
                rows.append({**row, "assumptions": assumed or None})
    progress.close()
    return rows, notes


def assignment_items(
    scenario: Scenario,
    found: Sequence[Found],
    policy_name: str,
    warnings: list[str],
    *,
    objective: str | None = None,
) -> list[dict[str, Any]]:
    """Each gang of the workloads placed in turn, with its Kueue-style assignment and reason."""
    from wlmap.placement.gangs import FreeCapacity, apply, measure  # noqa: PLC0415 - start-up cost

    topology = scenario.topology
    capacity = FreeCapacity(topology)
    policy = make_gang_policy(policy_name, weights=scenario.weights, objective=objective)
    finest = len(topology.levels) - 1
    items: list[dict[str, Any]] = []
    for item in found:
        origin = item.manifest.origin
        metadata = item.manifest.obj.get("metadata") or {}
        requests = gang_requests(
            item.view, annotations=metadata.get("annotations"), file=origin, warnings=warnings
        )
        for request in requests:
            gang = to_gang(request, topology, file=origin)
            placement = policy.place(capacity, gang) if gang.problem(topology) is None else None
            entry: dict[str, Any] = {
                "gang": request.name,
                "pods": gang.pods,
                "gpusPerPod": gang.gpus_per_pod,
                "required": _intent(request.required),
                "preferred": _intent(request.preferred),
                "slice": {"size": request.slice_size, **(_intent(request.slice_level) or {})}
                if request.slice_level
                else None,
                "policy": policy.name,
                "placed": placement is not None,
            }
            if placement is None:
                entry["reason"] = gang.problem(topology) or (
                    f"no room for {gang.pods} pods of {gang.gpus_per_pod} GPUs"
                    + (
                        " inside one domain of the required level"
                        if gang.required_level is not None
                        else ""
                    )
                )
            else:
                apply(capacity, placement)
                quality = measure(placement, topology, scenario.weights)
                entry["topologyAssignment"] = placement.topology_assignment(topology)
                entry["levels"] = [*topology.levels, HOSTNAME_LABEL]
                entry["nodes"] = [
                    {
                        "name": topology.nodes[node].name,
                        "domain": list(
                            topology.domain_values[finest][int(topology.node_domain[finest][node])]
                        ),
                        "pods": pods,
                    }
                    for node, pods in placement.nodes
                ]
                entry["reason"] = placement.reason
                entry["span"] = list(quality.span)
                entry["cost"] = round(quality.cost, 4)
            items.append(entry)
    return items


def place_workload_gangs(
    cluster: str,
    levels: Sequence[str],
    blocks: int,
    policies: Sequence[str],
    workloads: Callable[[], Sequence[Found]],
    warn: Callable[[str], None],
    *,
    objective: str | None = None,
) -> list[dict[str, Any]]:
    """Each gang of the workloads placed in turn on ``cluster`` (a node list or a
    ``--topology`` value) with the first policy asked, as :func:`assignment_items` says.

    Raises:
        PlacementInputError: the cluster or a policy is unknown or unreadable.
    """
    scenario = scenario_of(cluster, levels, blocks)
    policy = placing_policy(policies)
    warnings: list[str] = []
    items = assignment_items(scenario, workloads(), policy, warnings, objective=objective)
    for warning in warnings:
        warn(warning)
    return items


def simulate_gang_mix(
    topology: str,
    levels: Sequence[str],
    blocks: int,
    policies: Sequence[str],
    loads: Sequence[float],
    seeds: Sequence[int],
    *,
    hours: float,
    queue: QueueMode,
    verify: bool,
    durations: str | None,
    objective: str | None = None,
) -> tuple[list[dict[str, Any]], list[str]]:
    """The SYNTHETIC job mix simulated on a ``--topology`` value, as :func:`simulation_rows`
    says, for the policies asked (every one when none or ``all``)."""
    return simulation_rows(
        scenario_of(topology, levels, blocks),
        policy_names(policies),
        loads,
        seeds,
        hours=hours,
        queue=queue,
        verify=verify,
        durations=durations,
        objective=objective,
    )


def _intent(intent: Intent | None) -> dict[str, str] | None:
    return {"level": intent.level, "source": intent.source} if intent is not None else None


def assignment_rows(items: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The items flattened for CSV: one row per (gang, domain), or one for an unplaced gang."""
    rows = []
    for entry in items:
        head = {
            "gang": entry["gang"],
            "pods": entry["pods"],
            "gpus_per_pod": entry["gpusPerPod"],
            "required": (entry["required"] or {}).get("level"),
            "preferred": (entry["preferred"] or {}).get("level"),
            "policy": entry["policy"],
        }
        if entry.get("nodes") is None:
            rows.append(
                {**head, "levels": None, "domain": None, "count": 0, "reason": entry["reason"]}
            )
            continue
        for node in entry["nodes"]:
            rows.append(
                {
                    **head,
                    "levels": ">".join(entry["levels"]),
                    "domain": "/".join([*node["domain"], node["name"]]),
                    "count": node["pods"],
                    "reason": entry["reason"],
                }
            )
    return rows
