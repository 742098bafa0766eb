"""The planner's bucketed search (lower bounds over free counts) chooses exactly what the
scan of every node chooses, and the bound never exceeds a node's real cost."""

from __future__ import annotations

import pytest

from tests.unit.placement.devices._stream_plans import stream_plans
from wlmap.placement.devices import gang_planner as planner
from wlmap.placement.devices._node_bounds import _finest


@pytest.mark.parametrize("fill", [0.3, 0.6, 0.9])
@pytest.mark.parametrize("pods", [(1,), (1, 2, 4)])
def test_the_bucketed_search_places_like_the_full_scan(
    monkeypatch: pytest.MonkeyPatch, fill: float, pods: tuple[int, ...]
) -> None:
    bucketed = stream_plans(fill, 7, pods)
    assert any(p is not None for p in bucketed)
    monkeypatch.setattr(planner, "_BOUNDED", 10**9)  # every node scanned
    assert stream_plans(fill, 7, pods) == bucketed


@pytest.mark.parametrize(
    ("groups", "need", "bound"),
    [
        ([(4, 4), (4, 4)], 2, (1, 2)),  # two whole roots: one is broken, 2 stranded
        ([(4, 4), (4, 4)], 4, (0, 0)),  # one root taken whole
        ([(2, 4), (4, 4)], 2, (0, 0)),  # the partly used root fits exactly
        ([(3, 4), (1, 4)], 4, (0, 0)),  # both partly used roots, all their free devices
        ([(3, 4), (4, 4)], 1, (0, 2)),  # the partly used root strands 2
    ],
)
def test_the_bound_over_finest_groups(
    groups: list[tuple[int, int]], need: int, bound: tuple[int, int]
) -> None:
    assert _finest(groups, need) == bound
