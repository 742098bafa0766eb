"""The scenario clusters: the real Lingjun Clos and Tiresias spec, the GB200-like and Kueue TAS
shapes, a labelled node list; their weights; and bad input located to file, row and column."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from tests.traces import trace_path
from wlmap.errors import PlacementInputError
from wlmap.placement.gangs import (
    N256G8,
    Gang,
    GangPlacement,
    gb200,
    kueue_tas,
    lingjun,
    measure,
    node_list,
    tiresias,
    tiresias_spec,
)

RACK_NODES = Path(__file__).parent / "data" / "rack_nodes.yaml"


def test_lingjun_is_the_three_tier_clos_of_847_hosts_with_8_gpus_assumed() -> None:
    scenario = lingjun(trace_path("lingjun/topo.csv"))
    topology = scenario.topology
    assert topology.levels == ("DSW", "PSW", "ASW")
    assert len(topology.nodes) == 847
    assert scenario.gpus == 847 * 8
    # the traces README: one DSW, three PSWs of 179/362/306 hosts, 119 (PSW, ASW) pairs
    assert [topology.domain_count(level) for level in range(3)] == [1, 3, 119]
    hosts = Counter(topology.domain_values[1][d][1] for d in topology.node_domain[1])
    assert hosts == {"P8": 179, "P10": 362, "P12": 306}
    assert "8 GPUs per host" in scenario.describe()
    assert scenario.nvlink_level == 3  # NVLink stays in a host


def test_lingjun_weights_rise_from_host_to_tor_to_aggregation() -> None:
    scenario = lingjun(trace_path("lingjun/topo.csv"))
    topology = scenario.topology
    same_tor = [int(n) for n in topology.members[2][0][:2]]
    other_psw = int(
        next(
            n
            for n in range(847)
            if topology.node_domain[1][n] != topology.node_domain[1][same_tor[0]]
        )
    )
    gang = Gang("pair", 2, 8)
    # two pods: the one pair's weight is the cost
    assert measure(GangPlacement(gang, ((same_tor[0], 2),)), topology, scenario.weights).cost == 0
    pair = tuple(sorted((same_tor[0], same_tor[1])))
    assert (
        measure(GangPlacement(gang, ((pair[0], 1), (pair[1], 1))), topology, scenario.weights).cost
        == 10
    )
    apart = tuple(sorted((same_tor[0], other_psw)))
    assert (
        measure(
            GangPlacement(gang, ((apart[0], 1), (apart[1], 1))), topology, scenario.weights
        ).cost
        == 72
    )


def test_a_bad_lingjun_file_names_the_row_and_column(tmp_path: Path) -> None:
    path = tmp_path / "topo.csv"
    path.write_text("ip,DSW,PSW\nh1,G6,P8\n")
    with pytest.raises(PlacementInputError, match=r"topo.csv row 1 column 'ASW': missing column"):
        lingjun(path)
    path.write_text("ip,DSW,PSW,ASW\nh1,G6,P8,S1\nh2,G6,,S1\n")
    with pytest.raises(PlacementInputError, match=r"row 3 column 'PSW': expected a value"):
        lingjun(path)
    path.write_text("ip,DSW,PSW,ASW\nh1,G6,P8,S1\nh1,G6,P8,S2\n")
    with pytest.raises(
        PlacementInputError, match=r"row 3 column 'ip': .*listed again \(first on row 2\)"
    ):
        lingjun(path)


def test_gb200_blocks_hold_8_nvlink_racks_of_18_nodes_by_4_gpus() -> None:
    scenario = gb200(blocks=2)
    topology = scenario.topology
    assert len(topology.nodes) == 2 * 8 * 18
    assert [topology.domain_count(level) for level in range(2)] == [2, 16]
    assert {len(m) for m in topology.members[1]} == {18}
    assert scenario.gpus == 2 * 8 * 72
    # same rack 1 (NVLink), same block 10, across blocks 72
    gang = Gang("pair", 2, 4)
    rack = topology.members[1][0]
    other_rack_same_block = topology.members[1][1][0]
    other_block = topology.members[0][1][0]
    for second, cost in ((rack[1], 1), (other_rack_same_block, 10), (other_block, 72)):
        nodes = ((int(rack[0]), 1), (int(second), 1))
        assert measure(GangPlacement(gang, nodes), topology, scenario.weights).cost == cost
    with pytest.raises(ValueError, match="blocks must be >= 1"):
        gb200(blocks=0)


def test_kueue_tas_is_one_block_of_ten_racks_of_64_nodes() -> None:
    scenario = kueue_tas()
    topology = scenario.topology
    assert topology.levels == (
        "cloud.provider.com/topology-block",
        "cloud.provider.com/topology-rack",
    )
    assert [topology.domain_count(level) for level in range(2)] == [1, 10]
    assert {len(m) for m in topology.members[1]} == {64}
    assert scenario.gpus == 640 * 8
    assert "8 GPUs per node" in scenario.describe()


def test_tiresias_n256g8_is_read_from_its_spec_and_matches_the_built_in_shape() -> None:
    path = trace_path("tiresias/n256g8.csv")
    assert tiresias_spec(path) == N256G8 == (8, 32, 8)
    scenario = tiresias(path)
    assert scenario.name == "n256g8"
    assert scenario.topology.domain_count(0) == 8
    assert scenario.gpus == tiresias().gpus == 2048


def test_a_bad_tiresias_spec_names_the_column(tmp_path: Path) -> None:
    path = tmp_path / "spec.csv"
    path.write_text("num_switch,num_node_p_switch,num_gpu_p_node\n8,thirty,8\n")
    with pytest.raises(PlacementInputError, match=r"row 2 column 'num_node_p_switch': .*'thirty'"):
        tiresias(path)
    path.write_text("num_switch,num_gpu_p_node\n8,8\n")
    with pytest.raises(PlacementInputError, match=r"row 1 column 'num_node_p_switch'"):
        tiresias(path)


def test_a_node_list_is_grouped_by_the_given_level_keys() -> None:
    scenario = node_list(
        RACK_NODES, ["cloud.provider.com/topology-block", "cloud.provider.com/topology-rack"]
    )
    topology = scenario.topology
    assert [n.name for n in topology.nodes][:2] == ["gpu-b1-r1-a", "gpu-b1-r1-b"]
    assert len(topology.nodes) == 6  # the CPU-only node is left out
    assert topology.domain_values[1] == (("b1", "r1"), ("b1", "r2"), ("b2", "r1"))
    assert scenario.gpus == 4 * 8 + 2 * 4


def test_a_node_list_without_a_level_label_names_the_node() -> None:
    with pytest.raises(
        PlacementInputError, match=r"rack_nodes.yaml: node 'gpu-b1-r1-a' has no label 'zone'"
    ):
        node_list(RACK_NODES, ["zone"])
