"""The exact reference for gang placement: the per-decision optimum of communication cost.

:func:`optimal_placement` solves one decision with OR-Tools CP-SAT over domain totals, for
comparing any :class:`~wlmap.placement.topology.policy.GangPolicy` against the optimum.
"""

from __future__ import annotations

from wlmap.placement.topology.exact.solver import (
    DEFAULT_TIME_LIMIT,
    OptimalPlacement,
    optimal_placement,
)

__all__ = ["DEFAULT_TIME_LIMIT", "OptimalPlacement", "optimal_placement"]
