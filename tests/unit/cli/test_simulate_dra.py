"""``wlmap simulate dra``: the SYNTHETIC scenario's rows per policy and seed, a corpus
workload's DRA claims placed on a hand-made dump (devices chosen and the constraint they
keep, or the selector and constraint that rule each node out), and bad input."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
import yaml

from tests.corpus import corpus_path
from tests.unit.cli.runner import run
from wlmap.cli._exits import UNREADABLE_INPUT, USAGE
from wlmap.placement.devices import run_scenario

DATA = Path(__file__).resolve().parent / "data"
FITS = str(DATA / "dra-mig-cluster.yaml")
SPLIT = str(DATA / "dra-mig-cluster-split.yaml")
NO_MIG_CLASS = str(DATA / "dra-no-mig-class.yaml")
# a Deployment of 4 pods, each with 4 MIG devices of given profiles on one parent GPU
# (read when a test runs, so the module collects without the corpus)
MIG = "<the corpus MIG Deployment>"


def mig() -> str:
    return str(corpus_path("dra-gpu/quickstart-v1-gpu-test4-deployment.yaml"))


CLAIM = "ResourceClaimTemplate gpu-test4/mig-devices"


def test_scenario_rows_are_the_runs_of_each_policy_and_seed(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = run(
        capsys, "simulate", "dra", "--node-count", "12", "--gangs", "40", "--hold", "8",
        "--seeds", "3-4", "--policy", "first-fit", "--policy", "wlmap",
    )  # fmt: skip
    assert code == 0, err
    found = list(csv.DictReader(io.StringIO(out)))
    expected = [
        run_scenario(policy, 12, 40, 8.0, seed).row
        for policy in ("first-fit", "wlmap")
        for seed in (3, 4)
    ]
    assert found == [{k: str(v) for k, v in row.items()} for row in expected]
    assert {r["scenario"] for r in found} == {"SYNTHETIC fragmented DRA cluster"}
    assert "SYNTHETIC cluster: 12 nodes x 8 GPUs, 50% allocated at random" in err


def test_scenario_rows_in_json_carry_numbers(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(
        capsys, "simulate", "dra", "--node-count", "8", "--gangs", "20", "--seed", "7",
        "--fill", "0.25", "--policy", "clique-first-fit", "-o", "json",
    )  # fmt: skip
    assert code == 0, err
    (item,) = json.loads(out)["items"]
    assert item == run_scenario("clique-first-fit", 8, 20, 40.0, 7, 0.25).row
    assert item["aligned_share"] == 1.0  # the clique planner never splits a gang


def test_a_workloads_pods_get_mig_devices_of_one_parent_gpu(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = run(capsys, "simulate", "dra", "-f", mig(), "--cluster", FITS)
    assert code == 0, err
    items = yaml.safe_load(out)["items"]
    assert [(i["policy"], i["pod"]) for i in items] == [
        (policy, f"pod-deployment-{n}") for policy in ("wlmap", "first-fit") for n in range(4)
    ]
    for item in items:
        assert item["fits"] and item["reason"] is None
        parents = {d["name"].rsplit("-mig-", 1)[0] for d in item["devices"]}
        assert len(parents) == 1, item  # four MIG devices, all of one GPU
        assert [d["request"] for d in item["devices"]] == [
            "mig-1g-5gb-0", "mig-1g-5gb-1", "mig-2g-10gb", "mig-3g-20gb",
        ]  # fmt: skip
        assert {(d["driver"], d["pool"]) for d in item["devices"]} == {
            ("gpu.nvidia.com", item["node"])
        }
        (parent,) = parents
        assert item["constraints"] == [
            f"{CLAIM}: matchAttribute gpu.nvidia.com/parentUUID = "
            f"GPU-{item['node']}-{parent.removeprefix('gpu-')}"
        ]
    # node-a has one whole set of profiles (on gpu-1), node-b three
    wlmap = [(i["node"], i["devices"][0]["name"]) for i in items[:4]]
    assert sorted(wlmap) == [
        ("node-a", "gpu-1-mig-0"), ("node-b", "gpu-0-mig-0"),
        ("node-b", "gpu-1-mig-0"), ("node-b", "gpu-2-mig-0"),
    ]  # fmt: skip


def test_a_pod_that_fits_nowhere_names_the_selector_and_the_constraint(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = run(
        capsys, "simulate", "dra", "-f", mig(), "--cluster", SPLIT, "--policy", "first-fit",
        "-o", "csv",
    )  # fmt: skip
    assert code == 0, err
    rows = list(csv.DictReader(io.StringIO(out)))
    assert [(r["pod"], r["fits"], r["node"]) for r in rows] == [
        (f"pod-deployment-{n}", "False", "") for n in range(4)
    ]
    # node-a has only 1g.5gb slices; node-b has every profile, never on one GPU
    assert rows[0]["reason"] == (
        f"1 node: {CLAIM} request mig-2g-10gb: selector #0 "
        "\"device.attributes['gpu.nvidia.com'].profile == '2g.10gb'\" matches 0 free devices, "
        f"the request needs 1; 1 node: {CLAIM}: matchAttribute gpu.nvidia.com/parentUUID "
        "cannot be kept"
    )


def test_the_cluster_is_needed_with_a_workload(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "simulate", "dra", "-f", mig())
    assert code == USAGE
    assert "give the devices with --cluster FILE" in err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("-f", MIG, "--cluster", "missing.yaml"), "missing.yaml: cannot read DRA objects"),
        (("-f", "missing.yaml", "--cluster", FITS), "missing.yaml: no such file or directory"),
        (
            ("-f", MIG, "--cluster", NO_MIG_CLASS),
            f"{NO_MIG_CLASS}: {CLAIM} request mig-1g-5gb-0: DeviceClass 'mig.nvidia.com' is "
            "not in the input",
        ),
        (("--policy", "best"), "unknown DRA policy 'best'"),
    ],
)
def test_bad_input_is_one_located_line_and_exit_code(
    capsys: pytest.CaptureFixture[str], args: tuple[str, ...], message: str
) -> None:
    code, out, err = run(capsys, "simulate", "dra", *(mig() if a == MIG else a for a in args))
    assert code == UNREADABLE_INPUT
    assert out == ""
    assert message in err
    assert "Traceback" not in err


def test_a_gang_attribute_is_kept_and_said_for_wlmap(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(
        capsys, "simulate", "dra", "-f", mig(), "--cluster", FITS, "--policy", "wlmap",
        "--gang-attribute", "gpu.nvidia.com/productName", "-o", "json",
    )  # fmt: skip
    assert code == 0, err
    items = json.loads(out)["items"]
    assert len(items) == 4
    for item in items:
        assert item["constraints"][-1] == (
            "gang: gpu.nvidia.com/productName = NVIDIA A100-SXM4-40GB"
        )


def test_workloads_without_claims_are_warned_of(capsys: pytest.CaptureFixture[str]) -> None:
    lws = str(corpus_path("lws-leaderworkerset/kueue-sample-leaderworkerset-tas-gpu.yaml"))
    code, out, err = run(capsys, "simulate", "dra", "-f", lws, "--cluster", FITS, "-o", "json")
    assert code == 0, err
    assert json.loads(out) == {"items": [], "count": 0}
    assert "has DRA claims to place" in err
