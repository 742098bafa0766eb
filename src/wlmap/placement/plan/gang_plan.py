"""Where each gang of a workload would go on a cluster now, or why it would not fit.

The gangs are placed in turn with one policy; each placed gang takes its GPUs before the
next is tried (a workload's gangs run together), so the plan of the last gang sees the
first. A placed gang is reported as Kueue's ``TopologyAssignment`` (levels, and pods per
node named by its domain values), the nodes, the one domain holding every pod at the
finest level that has one, the policy's reason and the communication cost under the
topology's default fabric weights. A gang that does not fit gets its :class:`Shortfall`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from wlmap.errors import PlacementInputError
from wlmap.placement.feed import Intent, WorkloadGang, to_gang
from wlmap.placement.gangs import (
    Gang,
    GangPlacement,
    GangPolicy,
    Topology,
    apply,
    default_weights,
    measure,
)
from wlmap.placement.plan.occupancy import Occupancy
from wlmap.placement.plan.room import CLUSTER, level_key
from wlmap.placement.plan.shortfall import Shortfall, shortfall

__all__ = ["GangPlan", "common_level", "plan_gangs"]


@dataclass(frozen=True, slots=True)
class GangPlan:
    """One gang's answer.

    Attributes:
        request: the gang as the workload asks for it (levels by name, with sources).
        gang: the gang with its levels as indices into the topology.
        policy: the policy's name.
        placement: where its pods go, or None when it does not fit.
        shortfall: why it does not fit, or None when it does.
        level: the finest level one domain of which holds every pod (``CLUSTER`` when
            none does); None when it does not fit.
        domain: that domain's label values, coarsest first.
        cost: the communication cost of the placement (default fabric weights).
    """

    request: WorkloadGang
    gang: Gang
    policy: str
    placement: GangPlacement | None
    shortfall: Shortfall | None
    level: int | None = None
    domain: tuple[str, ...] = ()
    cost: float | None = None

    @property
    def fits(self) -> bool:
        """Whether the gang would be placed whole."""
        return self.placement is not None

    def to_dict(self, topology: Topology) -> dict[str, Any]:
        """The plan as JSON/YAML data (typed values and nulls)."""
        request = self.request
        entry: dict[str, Any] = {
            "gang": request.name,
            "components": list(request.components),
            "pods": request.pods,
            "gpusPerPod": request.gpus_per_pod,
            "required": _intent(request.required),
            "preferred": _intent(request.preferred),
            "slice": (
                {"size": request.slice_size, **(_intent(request.slice_level) or {})}
                if request.slice_level is not None and request.slice_size
                else None
            ),
            "policy": self.policy,
            "fits": self.fits,
        }
        if self.placement is None:
            assert self.shortfall is not None
            short = self.shortfall
            entry["reason"] = short.text
            entry["shortfall"] = {
                "level": short.level,
                "neededGpus": short.needed_gpus,
                "emptiestFreeGpus": short.best_free,
                "roomiestDomain": short.best_domain,
                "roomiestPods": short.best_room,
                "domainsThatFitWhenEmpty": short.fits_when_empty,
                "wouldFitIfFinished": [
                    {
                        "workloads": list(r.workloads),
                        "gpus": r.gpus,
                        "domains": r.domains,
                        "in": list(r.where),
                    }
                    for r in short.reliefs
                ],
            }
            return entry
        entry["topologyAssignment"] = self.placement.topology_assignment(topology)
        entry["domain"] = (
            None
            if self.level is None or self.level == CLUSTER
            else {"level": level_key(topology, self.level), "values": list(self.domain)}
        )
        entry["nodes"] = [
            {"name": topology.nodes[node].name, "pods": pods} for node, pods in self.placement.nodes
        ]
        entry["reason"] = self.placement.reason
        entry["cost"] = None if self.cost is None else round(self.cost, 4)
        return entry


def plan_gangs(
    occupancy: Occupancy,
    requests: Sequence[WorkloadGang],
    policy: GangPolicy,
    *,
    file: str = "",
) -> list[GangPlan]:
    """Each gang placed in turn on ``occupancy`` (whose capacity keeps the placed gangs).

    Raises:
        PlacementInputError: a gang names a level the topology lacks, or is malformed.
    """
    topology = occupancy.topology
    weights = default_weights(len(topology.levels))
    plans = []
    for request in requests:
        gang = to_gang(request, topology, file=file)
        problem = gang.problem(topology)
        if problem:
            raise PlacementInputError(
                f"{request.name}: {problem}", file=file, row=None, column=None
            )
        placement = policy.place(occupancy.capacity, gang)
        if placement is None:
            plans.append(GangPlan(request, gang, policy.name, None, shortfall(occupancy, gang)))
            continue
        level, domain = common_level(placement, topology)
        cost = measure(placement, topology, weights).cost
        apply(occupancy.capacity, placement)
        plans.append(GangPlan(request, gang, policy.name, placement, None, level, domain, cost))
    return plans


def common_level(placement: GangPlacement, topology: Topology) -> tuple[int, tuple[str, ...]]:
    """The finest level one domain of which holds every pod, and that domain's values
    (with the node's name at the node level); ``(CLUSTER, ())`` when no domain does."""
    found: tuple[int, tuple[str, ...]] = (CLUSTER, ())
    node_level = len(topology.levels)
    for level in range(node_level + 1):
        counts = placement.domain_counts(topology, level)
        if len(counts) != 1:
            break
        (domain,) = counts
        if level == node_level:
            parent = topology.domain_values[node_level - 1][
                int(topology.node_domain[node_level - 1][domain])
            ]
            found = (level, (*parent, topology.nodes[domain].name))
        else:
            found = (level, topology.domain_values[level][domain])
    return found


def _intent(intent: Intent | None) -> dict[str, str] | None:
    return {"level": intent.level, "source": intent.source} if intent is not None else None
