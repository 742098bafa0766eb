"""Span, locality, leakage and communication cost of a gang placement, worked by hand."""

from __future__ import annotations

import pytest

from wlmap.placement.gangs import (
    Gang,
    GangPlacement,
    TierWeights,
    Topology,
    build_topology,
    default_weights,
    measure,
)
from wlmap.placement.nodes import Node


def _topology() -> Topology:
    nodes = [
        Node(name, 64_000, 262_144, 8, "H100", labels={"block": b, "rack": r})
        for name, b, r in [
            ("n1", "b1", "r1"),
            ("n2", "b1", "r1"),
            ("n3", "b1", "r2"),
            ("n4", "b2", "r1"),
        ]
    ]
    return build_topology(["block", "rack"], nodes)


def test_a_gang_split_over_racks_and_blocks_costs_its_pairs_crossing_weights() -> None:
    topology = _topology()
    gang = Gang("g", pods=4, gpus_per_pod=4)
    placement = GangPlacement(gang, ((0, 2), (2, 1), (3, 1)))
    weights = TierWeights(across=72.0, levels=(10.0, 1.0), node=0.0)
    quality = measure(placement, topology, weights)
    # 6 pairs: n1-n1 (same node, 0); n1-n3 twice (same block b1, 10 each);
    # n1-n4 twice and n3-n4 (across blocks, 72 each): (0 + 20 + 216) / 6.
    assert quality.cost == pytest.approx(236 / 6)
    assert quality.span == (2, 3, 3)
    assert quality.locality == (0.75, 0.5, 0.5)
    # Pairs inside one block: 3 of 6; inside one rack or node: 1 of 6.
    assert quality.leakage == pytest.approx((0.5, 5 / 6, 5 / 6))


def test_one_node_costs_nothing_and_the_kueue_assignment_names_the_hostname() -> None:
    topology = _topology()
    placement = GangPlacement(Gang("g", pods=2, gpus_per_pod=4), ((1, 2),))
    assert measure(placement, topology, default_weights(2)).cost == 0.0
    # Kueue writes only the hostname level when the lowest level is the node
    assert placement.topology_assignment(topology) == {
        "levels": ["kubernetes.io/hostname"],
        "domains": [{"values": ["n2"], "count": 2}],
    }


def test_default_weights_climb_from_the_finest_level() -> None:
    assert default_weights(3) == TierWeights(across=72.0, levels=(36.0, 10.0, 1.0))
    assert default_weights(2) == TierWeights(across=36.0, levels=(10.0, 1.0))


def test_a_gang_request_names_what_is_wrong() -> None:
    topology = _topology()
    assert Gang("g", pods=6, gpus_per_pod=1, slice_size=4, slice_level=1).problem(topology) == (
        "slice_size 4 must divide the gang's 6 pods"
    )
    assert Gang("g", pods=2, gpus_per_pod=1, required_level=5).problem(topology) == (
        "required_level must be between 0 and 2, got 5"
    )
    assert Gang("g", pods=2, gpus_per_pod=0).problem(topology) == "gpus_per_pod must be >= 1, got 0"
