"""The plans a gang planner makes for a seeded stream of gangs on a prefilled cluster.

Two searches that must choose alike (a shortcut and the search it stands for) are
compared by these plans: the same cluster, the same gangs, every other gang released so
that nodes' free devices move both ways.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from wlmap.placement.devices import PCIE_ROOT, gang_stream, prefilled_state
from wlmap.placement.devices import gang_planner as planner

Plans = list[list[tuple[str, str, tuple[tuple[str, str, str], ...]]] | None]


def stream_plans(
    fill: float,
    seed: int,
    pods: tuple[int, ...],
    prepare: Callable[[planner.GangPlanner], None] | None = None,
) -> Plans:
    """Each gang's pods, nodes and devices (None where it found no room), in order."""
    rng = random.Random(seed)
    state = prefilled_state(40, fill, rng)
    gangs = planner.GangPlanner(state, (), (PCIE_ROOT,))
    if prepare is not None:
        prepare(gangs)
    found: Plans = []
    for index, (members, _) in enumerate(gang_stream(60, 1.0, rng, pods)):
        allocation = gangs.plan(members)
        if allocation is None:
            found.append(None)
            continue
        found.append(
            [(p, n, tuple(c.device.key for c in choices)) for p, n, choices in allocation.pods]
        )
        if index % 2:
            state.release(allocation.devices)
    return found
