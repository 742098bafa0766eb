"""DRA device placement (``wlmap simulate dra``): the SYNTHETIC scenario, and one
workload's claims on the devices of a dump, with first-fit and with wlmap's gang planner.

The CEL engine loads only when this module is first used.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from wlmap.errors import PlacementInputError
from wlmap.placement.devices import (
    POLICIES,
    DeviceState,
    DraInventory,
    GangAllocation,
    GangPlanner,
    PodClaims,
    SelectorEngine,
    first_fit_gang,
    kept_constraints,
    read_dra,
    read_dra_file,
    run_scenario,
    why_not,
)
from wlmap.placement.feed import workload_claims

if TYPE_CHECKING:
    from wlmap.sources.manifests import Manifest
    from wlmap.sources.workloads import Found

__all__ = [
    "POLICIES",
    "WORKLOAD_POLICIES",
    "place_workload_claims",
    "policy_names",
    "scenario_rows",
    "simulate_claims",
    "workload_items",
    "workload_rows",
]

WORKLOAD_POLICIES = ("wlmap", "first-fit")


def policy_names(given: Sequence[str], known: Sequence[str]) -> list[str]:
    """The policies asked for, in the order given ('all' or nothing: every one).

    Raises:
        PlacementInputError: a name is not one of ``known``.
    """
    if not given or "all" in given:
        return list(known)
    unknown = [p for p in given if p not in known]
    if unknown:
        raise PlacementInputError(
            f"unknown DRA policy {unknown[0]!r}: expected one of {', '.join(known)} or all",
            file="--policy",
            row=None,
            column=None,
        )
    return list(dict.fromkeys(given))


def scenario_rows(
    policies: Sequence[str],
    seeds: Sequence[int],
    *,
    nodes: int,
    gangs: int,
    hold: float,
    fill: float,
) -> list[dict[str, Any]]:
    """One row per (policy, seed) of the SYNTHETIC fragmented-cluster experiment."""
    return [
        run_scenario(policy, nodes, gangs, hold, seed, fill).row
        for policy in policies
        for seed in seeds
    ]


def simulate_claims(
    policies: Sequence[str],
    seeds: Sequence[int],
    *,
    nodes: int,
    gangs: int,
    hold: float,
    fill: float,
) -> list[dict[str, Any]]:
    """:func:`scenario_rows` for the policies asked (every one when none or ``all``)."""
    return scenario_rows(
        policy_names(policies, POLICIES), seeds, nodes=nodes, gangs=gangs, hold=hold, fill=fill
    )


def place_workload_claims(
    workloads: Sequence[Found],
    manifests: Sequence[Manifest],
    cluster: str,
    policies: Sequence[str],
    gang_attributes: Sequence[str],
    warn: Callable[[str], None],
) -> list[dict[str, Any]]:
    """:func:`workload_items` for the policies asked (every one when none or ``all``)."""
    warnings: list[str] = []
    items = workload_items(
        workloads,
        manifests,
        cluster,
        policy_names(policies, WORKLOAD_POLICIES),
        gang_attributes,
        warnings,
    )
    for warning in warnings:
        warn(warning)
    return items


def workload_items(
    workloads: Sequence[Found],
    manifests: Sequence[Manifest],
    cluster: str,
    policies: Sequence[str],
    gang_attributes: Sequence[str],
    warnings: list[str],
) -> list[dict[str, Any]]:
    """Per workload, policy and pod: the node and devices chosen and the constraints they
    keep, or why the pod does not fit.

    Each workload's pods are one gang, given devices all or nothing on the empty cluster.

    Raises:
        PlacementInputError: the dump is unreadable or bad, a claim names a template or
            a DeviceClass that is in neither input, or a selector fails.
    """
    dump = read_dra_file(cluster)
    own = read_dra([m.obj for m in manifests], manifests[0].origin if manifests else "")
    inventory = DraInventory(dump.devices, dump.classes, {**own.claims, **dump.claims})
    items: list[dict[str, Any]] = []
    for found in workloads:
        pods = workload_claims(found.view, inventory, file=found.manifest.origin, warnings=warnings)
        if not pods:
            continue
        for policy in policies:
            state = DeviceState(inventory, SelectorEngine(cluster))
            if policy == "wlmap":
                groups = sorted({a for p in pods for c in p.claims for a in _attrs(c)})
                allocation = GangPlanner(state, gang_attributes, groups).plan(pods)
            else:
                allocation = first_fit_gang(pods, state)
            items.extend(_pod_items(found, policy, pods, allocation, state, gang_attributes))
    if not items:
        names = ", ".join(f"{f.view.kind}/{f.view.name}" for f in workloads)
        warnings.append(f"no pod of {names or 'the input'} has DRA claims to place")
    return items


def _attrs(claim: Any) -> list[str]:
    return [c.attribute for c in claim.constraints]


def _pod_items(
    found: Found,
    policy: str,
    pods: Sequence[PodClaims],
    allocation: GangAllocation | None,
    state: DeviceState,
    gang_attributes: Sequence[str],
) -> list[dict[str, Any]]:
    workload = f"{found.view.kind}/{found.view.name}"
    if allocation is None:
        return [
            {
                "workload": workload,
                "policy": policy,
                "pod": pod.name,
                "fits": False,
                "node": None,
                "devices": [],
                "constraints": [],
                "reason": why_not(pod, state),
            }
            for pod in pods
        ]
    shared = []
    if policy == "wlmap":
        for attribute in gang_attributes:
            values = sorted({str(d.attribute(attribute)) for d in allocation.devices})
            shared.append(f"gang: {attribute} = {', '.join(values)}")
    by_name = {p.name: p for p in pods}
    return [
        {
            "workload": workload,
            "policy": policy,
            "pod": name,
            "fits": True,
            "node": node,
            "devices": [
                {
                    "name": c.device.name,
                    "pool": c.device.pool,
                    "driver": c.device.driver,
                    "claim": c.claim,
                    "request": c.request,
                }
                for c in choices
            ],
            "constraints": [*kept_constraints(by_name[name], choices), *shared],
            "reason": None,
        }
        for name, node, choices in allocation.pods
    ]


def workload_rows(items: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The items flattened for CSV: devices as ``driver/pool/name``."""
    return [
        {
            **item,
            "devices": [f"{d['driver']}/{d['pool']}/{d['name']}" for d in item["devices"]],
        }
        for item in items
    ]
