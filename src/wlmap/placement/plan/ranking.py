"""Several clusters ranked for one workload, as a multi-cluster dispatcher would rank them.

Each cluster gets the same workload planned with the same policy. A cluster where every
gang fits comes before one where some do not (MultiKueue dispatches to a cluster that can
admit the workload whole); among those, more gangs placed first, then the lower mean
communication cost of the placed gangs (the objective every policy is measured by here),
then more free GPUs left (headroom), then the name, so the order is deterministic.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from wlmap.placement.plan.gang_plan import GangPlan
from wlmap.placement.plan.occupancy import Occupancy

__all__ = ["ClusterPlan", "rank_clusters"]


@dataclass(frozen=True)
class ClusterPlan:
    """One cluster's plan of the workload."""

    occupancy: Occupancy
    plans: tuple[GangPlan, ...]

    @property
    def name(self) -> str:
        """The cluster's name (file or context)."""
        return self.occupancy.name

    @property
    def fits(self) -> bool:
        """Every gang fits."""
        return all(p.fits for p in self.plans)

    @property
    def placed(self) -> int:
        """Gangs that fit."""
        return sum(p.fits for p in self.plans)

    @property
    def cost(self) -> float | None:
        """Mean communication cost of the placed gangs; None when none is placed."""
        costs = [p.cost for p in self.plans if p.cost is not None]
        return sum(costs) / len(costs) if costs else None

    @property
    def free_gpus(self) -> int:
        """Free GPUs left once the placed gangs run."""
        return int(self.occupancy.capacity.node_free.sum())


def rank_clusters(clusters: Sequence[ClusterPlan]) -> list[ClusterPlan]:
    """The clusters, best first (see the module docstring for the order)."""
    return sorted(
        clusters,
        key=lambda c: (
            not c.fits,
            -c.placed,
            c.cost if c.cost is not None else float("inf"),
            -c.free_gpus,
            c.name,
        ),
    )
