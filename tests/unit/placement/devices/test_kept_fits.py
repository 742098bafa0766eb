"""The planner keeps each node's fit for a claim until the node's free devices change;
plans with the kept fits are the plans of a search that recomputes every fit."""

from __future__ import annotations

from typing import Any

import pytest

from tests.unit.placement.devices._stream_plans import stream_plans
from wlmap.placement.devices import gang_planner as planner


class _Forget(dict[Any, Any]):
    """A fit store that keeps nothing: every fit is searched again."""

    def __setitem__(self, key: Any, value: Any) -> None:
        return None


def _forget_fits(gangs: planner.GangPlanner) -> None:
    gangs._fits = _Forget()


@pytest.mark.parametrize("fill", [0.3, 0.9])
@pytest.mark.parametrize("pods", [(1,), (1, 2, 4)])
def test_kept_fits_change_no_plan(fill: float, pods: tuple[int, ...]) -> None:
    kept = stream_plans(fill, 11, pods)
    assert any(p is not None for p in kept)
    assert stream_plans(fill, 11, pods, _forget_fits) == kept
