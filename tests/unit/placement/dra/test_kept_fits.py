"""The planner keeps each node's fit for a claim until the node's free devices change;
plans with the kept fits are the plans of a search that recomputes every fit."""

from __future__ import annotations

import random
from typing import Any

import pytest

from wlmap.placement.dra import planner
from wlmap.placement.dra.scenario import PCIE_ROOT, gang_stream, prefilled_state

Plans = list[list[tuple[str, str, tuple[tuple[str, str, str], ...]]] | None]


class _Forget(dict[Any, Any]):
    """A fit store that keeps nothing: every fit is searched again."""

    def __setitem__(self, key: Any, value: Any) -> None:
        return None


def plans(fill: float, seed: int, pods: tuple[int, ...], *, keep: bool) -> Plans:
    rng = random.Random(seed)
    state = prefilled_state(40, fill, rng)
    gangs = planner.GangPlanner(state, (), (PCIE_ROOT,))
    if not keep:
        gangs._fits = _Forget()
    found: Plans = []
    for index, (members, _) in enumerate(gang_stream(60, 1.0, rng, pods)):
        allocation = gangs.plan(members)
        if allocation is None:
            found.append(None)
            continue
        found.append(
            [(p, n, tuple(c.device.key for c in choices)) for p, n, choices in allocation.pods]
        )
        if index % 2:  # release every other gang, so that nodes regain free devices
            state.release(allocation.devices)
    return found


@pytest.mark.parametrize("fill", [0.3, 0.9])
@pytest.mark.parametrize("pods", [(1,), (1, 2, 4)])
def test_kept_fits_change_no_plan(fill: float, pods: tuple[int, ...]) -> None:
    kept = plans(fill, 11, pods, keep=True)
    assert any(p is not None for p in kept)
    assert plans(fill, 11, pods, keep=False) == kept
