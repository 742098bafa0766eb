"""``wlmap simulate gangs``: simulated runs on the scenario topologies (rows per policy, load
and seed, the SYNTHETIC label and assumptions said), one workload's gangs placed on a node
list with the Kueue-style assignment, and located bad input."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
import yaml

from tests.corpus import corpus_path
from tests.traces import trace_path
from tests.unit.cli.runner import run
from tests.unit.placement.gangs.first_fit import FirstFit
from wlmap.cli._exits import UNREADABLE_INPUT, USAGE
from wlmap.placement.gangs import GANG_POLICIES, make_wlmap_gang_policy

RACK_NODES = (
    Path(__file__).resolve().parents[1] / "placement" / "gangs" / "data" / "rack_nodes.yaml"
)
LEVELS = "cloud.provider.com/topology-block,cloud.provider.com/topology-rack"
LWS = "lws-leaderworkerset/kueue-sample-leaderworkerset-tas-gpu.yaml"


@pytest.fixture(autouse=True)
def first_fit(monkeypatch: pytest.MonkeyPatch) -> None:
    # The cases below are worked out by hand for the simple first-fit stand-in alone.
    for name in list(GANG_POLICIES):
        monkeypatch.delitem(GANG_POLICIES, name)
    monkeypatch.setitem(GANG_POLICIES, "first-fit", FirstFit)


def rows(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text)))


def test_a_simulation_writes_one_row_per_load_and_seed_and_says_what_is_synthetic(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = run(
        capsys,
        "simulate", "gangs", "--topology", "n256g8", "--policy", "first-fit",
        "--load", "0.6", "--load", "1.0", "--seeds", "1-2", "--hours", "2", "--verify",
    )  # fmt: skip
    assert code == 0, err
    found = rows(out)
    assert [(r["scenario"], r["load"], r["seed"]) for r in found] == [
        ("n256g8", "0.6", "1"), ("n256g8", "0.6", "2"), ("n256g8", "1.0", "1"), ("n256g8", "1.0", "2"),
    ]  # fmt: skip
    assert {r["required_satisfied_pct"] for r in found} == {"100.0"}
    assert all(r["jobs"].startswith("SYNTHETIC") for r in found)
    assert "SYNTHETIC job mix" in err
    assert "n256g8: 256 nodes, 2048 GPUs, levels switch" in err


def test_the_lingjun_file_is_recognised_and_its_gpu_assumption_is_in_every_row(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = run(
        capsys, "simulate", "gangs", "--topology", str(trace_path("lingjun/topo.csv")),
        "--hours", "0.5", "-o", "json",
    )  # fmt: skip
    assert code == 0, err
    (item,) = json.loads(out)["items"]
    assert (item["scenario"], item["level"], item["policy"]) == ("lingjun", "ASW", "first-fit")
    assert item["assumptions"] == "8 GPUs per host (topo.csv gives no GPU count)"
    assert "ASSUMED: 8 GPUs per host" in err


def test_a_workloads_gangs_are_placed_with_their_assignment_and_reason(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = run(
        capsys, "simulate", "gangs", "-f", str(corpus_path(LWS)), "--nodes", str(RACK_NODES),
        "--levels", LEVELS,
    )  # fmt: skip
    assert code == 0, err
    first, second = yaml.safe_load(out)["items"]
    assert first["required"] == {
        "level": "cloud.provider.com/topology-rack",
        "source": "annotation kueue.x-k8s.io/podset-required-topology of component worker",
    }
    # two 1-GPU workers per group: first fit puts both groups' workers on the first node
    assert first["topologyAssignment"] == {
        "levels": ["kubernetes.io/hostname"],
        "domains": [{"values": ["gpu-b1-r1-a"], "count": 2}],
    }
    assert first["nodes"] == [{"name": "gpu-b1-r1-a", "domain": ["b1", "r1"], "pods": 2}]
    assert (first["reason"], first["span"], first["cost"]) == ("first fit", [1, 1, 1], 0.0)
    assert second["topologyAssignment"]["domains"] == [{"values": ["gpu-b1-r1-a"], "count": 2}]
    assert "component leader: no GPUs, left out of gang placement" in err


def test_a_gang_that_cannot_fit_its_required_level_says_why(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    manifest = yaml.safe_load(corpus_path(LWS).read_text())
    manifest["spec"]["leaderWorkerTemplate"]["size"] = 6  # 5 workers x 4 GPUs = 20 > a rack's 16
    manifest["spec"]["leaderWorkerTemplate"]["workerTemplate"]["spec"]["containers"][0][
        "resources"
    ]["requests"]["nvidia.com/gpu"] = "4"
    path = tmp_path / "lws.yaml"
    path.write_text(yaml.safe_dump(manifest))
    code, out, _ = run(
        capsys, "simulate", "gangs", "-f", str(path), "--nodes", str(RACK_NODES),
        "--levels", LEVELS, "-o", "csv",
    )  # fmt: skip
    assert code == 0
    first = rows(out)[0]
    assert (first["count"], first["domain"]) == ("0", "")
    assert first["reason"] == "no room for 5 pods of 4 GPUs inside one domain of the required level"


def test_bad_input_is_located_or_a_usage_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, _, err = run(capsys, "simulate", "gangs", "--topology", str(RACK_NODES))
    assert code == UNREADABLE_INPUT
    assert "rack_nodes.yaml: a node list needs its topology levels" in err
    code, _, err = run(
        capsys, "simulate", "gangs", "--topology", str(RACK_NODES), "--levels", "zone"
    )
    assert (code, "node 'gpu-b1-r1-a' has no label 'zone'" in err) == (UNREADABLE_INPUT, True)
    code, _, err = run(
        capsys, "simulate", "gangs", "-f", str(corpus_path(LWS)), "--nodes", str(RACK_NODES),
        "--levels", "cloud.provider.com/topology-block",
    )  # fmt: skip
    assert code == UNREADABLE_INPUT
    assert "level 'cloud.provider.com/topology-rack' is not in the topology" in err
    code, _, err = run(capsys, "simulate", "gangs", "--topology", "lingjun")
    assert (code, "give its path as --topology" in err) == (UNREADABLE_INPUT, True)
    code, _, err = run(capsys, "simulate", "gangs", "--topology", "gb200", "--policy", "nope")
    assert code == UNREADABLE_INPUT
    assert "unknown gang policy 'nope'; expected one of: first-fit" in err
    code, _, err = run(capsys, "simulate", "gangs")
    assert code == USAGE


def test_a_workload_can_be_placed_on_a_built_in_shape(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(
        capsys, "simulate", "gangs", "-f", str(corpus_path("kai-podgroup/multi-topology-jobs-gpu.yaml")),
        "--topology", "gb200", "--blocks", "1", "-o", "csv",
    )  # fmt: skip
    assert code == 0, err
    placed = rows(out)
    # two Jobs of 3 pods x 4 GPUs: one 4-GPU node each, first fit in rack b00.r0
    assert [(r["gang"], r["domain"], r["count"]) for r in placed] == [
        ("Job default/rack-bound-job gang job", f"b00/b00.r0/gb-b00-r0-n0{i}", "1")
        for i in range(3)
    ] + [
        ("Job default/zone-bound-job gang job", f"b00/b00.r0/gb-b00-r0-n0{i}", "1")
        for i in range(3, 6)
    ]
    assert {r["levels"] for r in placed} == {"block>nvidia.com/gpu.clique>kubernetes.io/hostname"}
    code, _, err = run(
        capsys, "simulate", "gangs", "-f", str(corpus_path(LWS)), "--topology", "gb200",
        "--nodes", str(RACK_NODES),
    )  # fmt: skip
    assert code == USAGE


def test_without_a_policy_a_workload_is_placed_by_wlmaps_own(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # The real default joins the stand-in registry, after first-fit: it is still the one used.
    monkeypatch.setitem(GANG_POLICIES, "wlmap", make_wlmap_gang_policy)
    code, out, err = run(
        capsys, "simulate", "gangs", "-f", str(corpus_path("kai-podgroup/multi-topology-jobs-gpu.yaml")),
        "--topology", "gb200", "--blocks", "1", "-o", "csv",
    )  # fmt: skip
    assert code == 0, err
    placed = rows(out)
    assert {r["policy"] for r in placed} == {"wlmap"}
    # Two Jobs of 3 pods x 4 GPUs. The first: every clique is whole and scores alike, the
    # lower index decides. The second joins it in b00.r0 rather than break a whole clique.
    first, second = placed[0]["reason"], placed[3]["reason"]
    assert first.startswith("clique b00/b00.r0: ties b00/b00.r1 on every term, lowerIndex")
    assert second.startswith("clique b00/b00.r0: whole cliques broken 0 vs 1 for b00/b00.r1")
    assert [r["domain"] for r in placed] == [f"b00/b00.r0/gb-b00-r0-n0{i}" for i in range(6)]
