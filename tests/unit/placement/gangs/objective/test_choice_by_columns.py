"""The column-wise choice over a decision's candidates picks what ``select`` picks."""

from __future__ import annotations

import numpy as np
import pytest

from tests.unit.placement.gangs.exact.brute_force import random_gang, tiny_cluster
from wlmap.placement.gangs import default_objective, parse_objective
from wlmap.placement.gangs.objective._candidates import build, candidate_split
from wlmap.placement.gangs.objective._choice import select
from wlmap.placement.gangs.objective._domains import DomainIndex, gang_room
from wlmap.placement.gangs.objective._objective import Objective
from wlmap.placement.gangs.objective._scoring import finest_scored, finest_table, scored
from wlmap.placement.gangs.objective._table import choose
from wlmap.placement.gangs.objective._terms import resolve

WEIGHTED = """
kind: GangObjective
weights: {communication: 1, wholeFreeDomains: 0.5, spareCapacity: 0.2, balance: 0.1}
terms: {spareCapacity: {gpus: 3}, wholeFreeDomains: {level: block}}
tieBreaks: [fewerNodes, tighterFit]
"""
INDEX_FIRST = """
kind: GangObjective
tiers: [{term: spareCapacity}]
tieBreaks: [lowerIndex, tighterFit]
"""


@pytest.mark.parametrize(
    "objective",
    [default_objective(), parse_objective(WEIGHTED), parse_objective(INDEX_FIRST)],
    ids=["default", "weighted", "lower-index-first"],
)
def test_choice_and_runner_up_match_the_list_rule(objective: Objective) -> None:
    rng = np.random.default_rng(11)
    compared = 0
    for round_ in range(60):
        capacity = tiny_cluster(rng, racks=3, nodes=3)
        topology = capacity.topology
        index = DomainIndex.build(topology)
        meter = resolve(objective, topology, "test")
        gang = random_gang(rng, f"g{round_}")
        room = gang_room(index, capacity, gang)
        fine, coarser = candidate_split(index, room, gang)
        if not len(fine) and not coarser:
            continue
        packed = [
            scored(objective, meter, capacity, gang, build(index, room, lv, d, gang.pods))
            for lv, d in coarser
        ]
        rows = finest_scored(objective, meter, index, room, gang, [int(d) for d in fine])
        listed = rows + packed
        table = finest_table(objective, meter, index, room, gang, fine)
        best = choose(objective, table, packed)
        expected = listed[select(objective, listed)]
        assert best is not None
        assert (best.level, best.domain) == (expected.level, expected.domain), gang
        skip = (best.level, best.domain)
        others = [s for s in listed if (s.level, s.domain) != skip]
        runner = choose(objective, table, packed, skip=skip)
        if not others:
            assert runner is None
            continue
        assert runner is not None
        second = others[select(objective, others)]
        assert (runner.level, runner.domain) == (second.level, second.domain), gang
        compared += 1
    assert compared > 20
