"""Finest-level candidates scored from the histograms score as their packing measures."""

from __future__ import annotations

import numpy as np
import pytest

from tests.unit.placement.gangs.exact.brute_force import random_gang, tiny_cluster
from wlmap.placement.gangs import parse_objective
from wlmap.placement.gangs.objective._candidates import build, candidate_domains
from wlmap.placement.gangs.objective._domains import DomainIndex, gang_room
from wlmap.placement.gangs.objective._scoring import finest_scored, scored
from wlmap.placement.gangs.objective._terms import resolve

EVERY_TERM = """
kind: GangObjective
weights: {communication: 1, wholeFreeDomains: 1, spareCapacity: 1, balance: 1, priority: 1}
terms: {spareCapacity: {gpus: 3}, balance: {level: rack}, wholeFreeDomains: {level: block}}
tieBreaks: [tighterFit, tighterNode, tighterParent, fewerNodes, fewerDomains]
"""


def test_every_term_and_tie_break_matches_the_packed_candidate() -> None:
    objective = parse_objective(EVERY_TERM)
    rng = np.random.default_rng(5)
    checked = 0
    for round_ in range(40):
        capacity = tiny_cluster(rng, racks=3, nodes=3)
        index = DomainIndex.build(capacity.topology)
        meter = resolve(objective, capacity.topology, "test")
        gang = random_gang(rng, f"g{round_}")
        room = gang_room(index, capacity, gang)
        finest = [d for level, d in candidate_domains(index, room, gang) if level == 1]
        fast = finest_scored(objective, meter, index, room, gang, finest)
        for quick, domain in zip(fast, finest, strict=True):
            slow = scored(
                objective, meter, capacity, gang, build(index, room, 1, domain, gang.pods)
            )
            assert quick.raw == pytest.approx(slow.raw), f"{gang} in rack {domain}"
            assert quick.score == pytest.approx(slow.score)
            assert quick.ties == slow.ties
            checked += 1
    assert checked > 40
