"""Where the replacements of a gang's lost pods go: the simulated minimal-movement rule
applied to the live cluster.

A gang that lost pods to a faulty node has its healthy pods still bound and its
replacements (made by its controller, held by the placement gate) waiting. The cluster's
nodes and bound pods are read as a plan reads them (:func:`read_occupancy`), the faulty
nodes are taken out of service, and :class:`WlmapReplacement` (``keep_domain``: the lost
pods stay in the smallest domain that held the gang) decides where the lost pods may go
without moving any healthy one. The answer is the node-selector term of the domain that
then holds the whole gang (the plan's renderer writes it) with the faulty nodes excluded
by name: kube-scheduler chooses the nodes inside it, as it does for a fresh gang.

Only a move of the lost pods is carried out live; when the rule finds none (the domain is
full, or only a whole re-placement that evicts healthy pods would fit), the replacements
stay gated and the reason says so.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from wlmap.placement.feed import WorkloadGang, to_gang
from wlmap.placement.gangs import GangPlacement, WlmapReplacement, make_gang_policy
from wlmap.placement.plan import (
    CLUSTER,
    GangPlan,
    common_level,
    level_word,
    node_selector_term,
    read_occupancy,
)

__all__ = ["HOSTNAME", "Replacement", "plan_replacement"]

HOSTNAME = "kubernetes.io/hostname"  # the label that names a node, to exclude faulty ones


@dataclass(frozen=True, slots=True)
class Replacement:
    """Where a gang's replacements go.

    Attributes:
        term: the node-selector term to narrow them by (their domain, faulty nodes
            excluded); None when they must wait.
        message: what was decided and why, in words.
    """

    term: dict[str, Any] | None
    message: str


def plan_replacement(
    objects: Sequence[Mapping[str, Any]],
    levels: Sequence[str],
    policy_name: str,
    request: WorkloadGang,
    bound: Sequence[Mapping[str, Any]],
    replacements: int,
    lost_on: Sequence[str],
    faulty: Mapping[str, str],
    owner_of: Callable[[Mapping[str, Any]], str],
) -> Replacement:
    """Where ``replacements`` new pods of the gang ``request`` go.

    Args:
        objects: the cluster's nodes and bound pods (the gang's healthy pods among them).
        levels: the topology's level label keys, coarsest first.
        policy_name: the gang policy a whole re-placement would use.
        request: the gang.
        bound: its healthy pods, bound to their nodes.
        replacements: how many of its pods are waiting to be placed.
        lost_on: the nodes its lost pods ran on, one entry per pod, as far as known.
        faulty: the faulty nodes, with what is wrong with each.
        owner_of: names a pod's workload (as the plan names it).

    Raises:
        PlacementInputError: the cluster cannot be read as a topology, or the gang names
            a level it lacks.
    """
    occupancy = read_occupancy(objects, levels, owner_of, name="cluster")
    topology, capacity = occupancy.topology, occupancy.capacity
    index = {node.name: i for i, node in enumerate(topology.nodes)}
    for name in faulty:  # out of service: nothing may move there
        if name in index:
            capacity.remove(index[name], int(capacity.node_free[index[name]]))
    gang = to_gang(request, topology)
    held: dict[int, int] = {}
    for pod in bound:
        node = index.get(str((pod.get("spec") or {}).get("nodeName")))
        if node is not None:
            held[node] = held.get(node, 0) + 1
    survivors = GangPlacement(gang, tuple(sorted(held.items())))
    lost = _lost([index[n] for n in lost_on if n in index], replacements, sorted(held) or [0])
    recovery = WlmapReplacement(keep_domain=True).recover(
        capacity, survivors, lost, make_gang_policy(policy_name), None
    )
    count = f"{replacements} pod(s) of {gang.gpus_per_pod} GPU(s)"
    if recovery.kind != "swap" or recovery.placement is None:
        why = (
            "only a whole re-placement, evicting its healthy pods, would fit"
            if recovery.kind == "replace"
            else "no room in its domain now"
        )
        return Replacement(None, f"{request.name}: {count} wait for room: {why}")
    placement = recovery.placement
    level, domain = common_level(placement, topology)
    plan = GangPlan(request, gang, policy_name, placement, None, level, domain)
    term = node_selector_term(plan, topology)
    where = (
        "the cluster" if level == CLUSTER else f"{level_word(topology, level)} {'/'.join(domain)}"
    )
    excluded = sorted(faulty)
    if excluded:
        expressions = [*term["matchExpressions"]]
        expressions.append({"key": HOSTNAME, "operator": "NotIn", "values": excluded})
        term = {"matchExpressions": expressions}
    return Replacement(term, f"{request.name}: {count} placed in {where} ({placement.reason})")


def _lost(nodes: list[int], count: int, anchor: list[int]) -> tuple[tuple[int, int], ...]:
    """``count`` lost pods as (node, pods) pairs: on the nodes they ran on as far as
    known, the rest on the gang's first node (the rule needs a node only to find the
    gang's domains, which the healthy pods name as well)."""
    known = nodes[:count] + [anchor[0]] * max(0, count - len(nodes))
    pairs: dict[int, int] = {}
    for node in known:
        pairs[node] = pairs.get(node, 0) + 1
    return tuple(sorted(pairs.items()))
