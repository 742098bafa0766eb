"""The exact reference for gang placement: the per-decision optimum of communication cost.

:func:`optimal_placement` solves one decision with OR-Tools CP-SAT over domain totals, for
comparing any :class:`~wlmap.placement.gangs.gang_policy.GangPolicy` against the optimum;
:func:`optimal_recovery` solves one fault's re-placement (fewest pods moved, then least
cost), for comparing a fault reaction against it.
"""

from __future__ import annotations

from wlmap.placement.gangs.exact.exact_recovery import OptimalRecovery, optimal_recovery, pods_moved
from wlmap.placement.gangs.exact.solver import (
    DEFAULT_TIME_LIMIT,
    OptimalPlacement,
    optimal_placement,
)

__all__ = [
    "DEFAULT_TIME_LIMIT",
    "OptimalPlacement",
    "OptimalRecovery",
    "optimal_placement",
    "optimal_recovery",
    "pods_moved",
]
