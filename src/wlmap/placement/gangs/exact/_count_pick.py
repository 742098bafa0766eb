"""CP-SAT's pick of one pod count per domain: the exact step both references share.

Each domain offers a table of the best value for every count it may take (``NONE`` where
it cannot take that many); the pick gives every domain one count, the counts add up to
the pods asked for, and the total value is the largest.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
from ortools.sat.python import cp_model

from wlmap.placement.gangs.exact._tables import NONE

__all__ = ["choose_counts"]


def choose_counts(
    tables: Mapping[int, np.ndarray], pods: int, time_limit: float, workers: int, what: str
) -> tuple[dict[int, int], bool] | None:
    """Each domain's count (domains that take none left out) and whether CP-SAT proved it
    optimal; None when no pick adds up to ``pods``.

    Raises:
        RuntimeError: no answer within ``time_limit`` seconds (``what`` names the search).
    """
    model = cp_model.CpModel()
    picks: dict[int, list[tuple[int, cp_model.IntVar]]] = {}
    objective: list[cp_model.LinearExprT] = []
    for domain, table in tables.items():
        feasible = [int(t) for t in np.flatnonzero(table > NONE)]
        if feasible == [0]:
            continue
        # One Boolean per count the domain may take: a multiple-choice knapsack, whose
        # relaxation bounds the convex gains far better than an element constraint does.
        options = [(t, model.new_bool_var(f"x{domain}.{t}")) for t in feasible]
        model.add_exactly_one(x for _, x in options)
        objective.extend(int(table[t]) * x for t, x in options)
        picks[domain] = options
    if not picks:
        return None
    model.add(sum(t * x for options in picks.values() for t, x in options) == pods)
    model.maximize(sum(objective))
    solver = cp_model.CpSolver()
    solver.parameters.max_time_in_seconds = time_limit
    solver.parameters.num_workers = workers
    # Probing and symmetry detection take longer than the search on a model this small.
    solver.parameters.cp_model_probing_level = 0
    solver.parameters.symmetry_level = 0
    status = solver.solve(model)
    if status == cp_model.INFEASIBLE:
        return None
    if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        raise RuntimeError(
            f"CP-SAT found no {what} within {time_limit} s ({solver.status_name(status)})"
        )
    chosen = {d: next(t for t, x in options if solver.value(x)) for d, options in picks.items()}
    return chosen, status == cp_model.OPTIMAL
