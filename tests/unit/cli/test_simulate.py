"""``wlmap simulate``: workloads and traces placed on the openb cluster or a Kubernetes node
list, the allocation curve with the offline bound, its plot, and located bad input."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from tests.corpus import corpus_path
from tests.traces import openb
from tests.unit.cli.runner import run
from wlmap.cli._exits import UNREADABLE_INPUT, USAGE
from wlmap.placement.packing import POLICIES, read_openb_nodes

NODES_YAML = Path(__file__).resolve().parents[1] / "placement" / "data" / "nodes.yaml"
JOBSET = "scheduling-workload/jobset-was-preemption-high-priority.yaml"
RAYCLUSTER = "ray-raycluster/verl-gpu.yaml"


def rows(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text)))


def test_jobset_and_raycluster_are_placed_on_the_openb_cluster(
    capsys: pytest.CaptureFixture[str],
) -> None:
    nodes = {n.name: n for n in read_openb_nodes(openb("gpu_node"))}
    code, out, err = run(
        capsys,
        "simulate",
        "--nodes",
        str(openb("gpu_node")),
        "-f",
        str(corpus_path(JOBSET)),
        "-f",
        str(corpus_path(RAYCLUSTER)),
        "--policy",
        "bestfit",
    )
    assert code == 0
    placed = rows(out)
    assert [(r["origin"], r["pod"]) for r in placed] == [
        ("JobSet default/hp-js component pod[rj]", f"hp-js-pod-rj-{i}") for i in range(4)
    ] + [("RayCluster default/verl-cluster component head", "verl-cluster-head-0")]
    for row in placed:
        node = nodes[row["node"]]  # every pod found a node of the cluster
        assert int(row["cpu_milli"]) <= node.cpu_milli
    head = placed[-1]
    assert head["gpus"] == "0;1;2;3"
    assert nodes[head["node"]].gpus >= 4
    assert nodes[head["node"]].memory_mib >= int(head["memory_mib"]) == 137_330
    # the JobSet's Workload object is not a placed workload, and is said so
    assert "no definition covers Workload" in err


def test_kubernetes_node_list_and_json_output(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(
        capsys,
        "simulate",
        "--nodes",
        str(NODES_YAML),
        "-f",
        str(corpus_path(RAYCLUSTER)),
        "--policy",
        "packing",
        "--policy",
        "bound",
        "--seed",
        "1-2",
        "-o",
        "json",
    )
    assert code == 0
    document = json.loads(out)
    assert document["count"] == 2
    assert "the bound has no placements" in err
    assert [(i["seed"], i["node"], i["gpus"]) for i in document["items"]] == [
        (1, "dgx-a100-01", [0, 1, 2, 3]),
        (2, "dgx-a100-01", [0, 1, 2, 3]),
    ]


def test_a_pod_no_node_can_take_is_reported_without_a_node(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    small = tmp_path / "small.csv"
    small.write_text("sn,cpu_milli,memory_mib,gpu,model\nn1,8000,16384,2,T4\n", encoding="utf-8")
    code, out, err = run(
        capsys, "simulate", "--nodes", str(small), "-f", str(corpus_path(RAYCLUSTER))
    )
    assert (code, err) == (0, "")
    placed = rows(out)
    assert len(placed) == len(POLICIES)  # the head under each policy (the bound places none)
    assert {(r["pod"], r["node"], r["gpus"]) for r in placed} == {("verl-cluster-head-0", "", "")}


def test_allocation_curve_with_the_bound_above_the_policy(
    capfd: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    results = tmp_path / "results.csv"
    code, out, err = run(  # capfd: the solver's own output would bypass sys.stdout
        capfd,
        "simulate",
        "--nodes",
        str(openb("gpu_node")),
        "--pods",
        str(openb("default")),
        "--policy",
        "bestfit",
        "--policy",
        "bound",
        "--output-file",
        str(results),
    )
    assert (code, out, err) == (0, "", "")  # quiet in a pipe, data in the file
    found = rows(results.read_text(encoding="utf-8"))
    by_policy: dict[str, dict[int, float]] = {}
    for row in found:
        assert (row["trace"], row["seed"]) == ("default", "42")
        by_policy.setdefault(row["policy"], {})[int(row["arrived_pct"])] = float(
            row["allocation_pct"]
        )
    bound, bestfit = by_policy["bound"], by_policy["bestfit"]
    assert sorted(bound) == list(range(131))
    for arrived, allocation in bestfit.items():
        assert allocation <= bound[arrived] + 1e-9
    assert all(value <= 100.0 for value in bound.values())
    # the online policy leaves GPUs idle that the offline bound would fill
    assert bound[130] - bestfit[130] > 1.0


def test_plot_writes_png_and_a_reproducible_svg(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    results = tmp_path / "results.csv"
    lines = ["trace,policy,seed,arrived_pct,allocation_pct"]
    for seed in (42, 43):
        for arrived in range(0, 131, 10):
            lines.append(f"default,bestfit,{seed},{arrived},{min(arrived, 92 + seed - 42)}")
            lines.append(f"default,bound,{seed},{arrived},{min(arrived, 99.5)}")
    results.write_text("\n".join(lines) + "\n", encoding="utf-8")
    code, out, _ = run(capsys, "simulate", "plot", str(results))
    assert code == 0
    png, svg = (tmp_path / "results.png"), (tmp_path / "results.svg")
    assert out.splitlines() == [str(png), str(svg)]
    assert png.read_bytes().startswith(b"\x89PNG")
    first = svg.read_text(encoding="utf-8")
    assert "bestfit (2 seeds)" in first
    assert "offline bound" in first
    run(capsys, "simulate", "plot", str(results), "--output-file", str(tmp_path / "again.svg"))
    assert (tmp_path / "again.svg").read_text(encoding="utf-8") == first


NODE_HEADER = "sn,cpu_milli,memory_mib,gpu,model\n"
POD_HEADER = "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec\n"


@pytest.mark.parametrize(
    ("pods", "row", "column", "says"),
    [
        ("name,cpu_milli,memory_mib,num_gpu\np,1000,1024,1\n", 1, "gpu_milli", "missing column"),
        (POD_HEADER + "p,-500,1024,1,500,\n", 2, "cpu_milli", "expected a number >= 0"),
        (POD_HEADER + "p,1000,1024,1,1500,\n", 2, "gpu_milli", "must be <= 1000"),
        (
            POD_HEADER + "p,1000,1024,1,500,\nq,1000,1024,1,500,H100|A100\n",
            3,
            "gpu_spec",
            "no node has the GPU model A100, H100 (the nodes have G2, T4)",
        ),
    ],
)
def test_bad_pod_lists_name_file_row_and_column(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    pods: str,
    row: int,
    column: str,
    says: str,
) -> None:
    nodes = tmp_path / "nodes.csv"
    nodes.write_text(NODE_HEADER + "a,8000,16384,2,T4\nb,8000,16384,8,G2\n", encoding="utf-8")
    listed = tmp_path / "pods.csv"
    listed.write_text(pods, encoding="utf-8")
    code, out, err = run(capsys, "simulate", "--nodes", str(nodes), "--pods", str(listed))
    assert (code, out) == (UNREADABLE_INPUT, "")
    assert err.startswith(f"error: {listed} row {row} column {column!r}: ")
    assert says in err


def test_allocation_on_a_cluster_without_gpus_is_bad_input(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    nodes = tmp_path / "cpu.csv"
    nodes.write_text(NODE_HEADER + "c,8000,16384,0,\n", encoding="utf-8")
    code, out, err = run(capsys, "simulate", "--nodes", str(nodes), "--pods", str(openb("default")))
    assert (code, out) == (UNREADABLE_INPUT, "")
    assert err.startswith(f"error: {nodes}: no node has a GPU")


def test_allocation_of_workloads_without_gpus_is_bad_input(
    capsys: pytest.CaptureFixture[str],
) -> None:
    jobset = corpus_path(JOBSET)
    code, out, err = run(
        capsys, "simulate", "--nodes", str(openb("gpu_node")), "-f", str(jobset), "--allocation"
    )
    assert (code, out) == (UNREADABLE_INPUT, "")
    assert err.startswith(f"error: {jobset}: no pod asks for a GPU")


def test_a_workload_asking_for_a_model_no_node_has_is_named(
    capsys: pytest.CaptureFixture[str],
) -> None:
    deployment = corpus_path("core-gpu/gpu-operator-tests-plugin-test-deployment.yaml")
    code, _, err = run(capsys, "simulate", "--nodes", str(openb("gpu_node")), "-f", str(deployment))
    assert code == UNREADABLE_INPUT
    assert f"error: {deployment}: Deployment " in err
    assert "no node has the GPU model Tesla-T4-SHARED" in err


def test_bad_results_for_the_plot_are_located(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    results = tmp_path / "results.csv"
    results.write_text("policy,arrived_pct,allocation_pct\nfgd,100,101.5\n", encoding="utf-8")
    code, _, err = run(capsys, "simulate", "plot", str(results))
    assert code == UNREADABLE_INPUT
    assert err == (
        f"error: {results} row 2 column 'allocation_pct': expected a number from 0 to 100, "
        "got '101.5'\n"
    )


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--pods", "p.csv"], "give the cluster with --nodes FILE"),
        (["--nodes", "n.csv"], "give the pods with --pods FILE or -f FILE (not both)"),
        (["--nodes", "n.csv", "--pods", "p.csv", "--seed", "51-42"], "ends before it starts"),
        (["--nodes", "n.csv", "--pods", "p.csv", "--policy", "tetris"], "unknown policy 'tetris'"),
    ],
)
def test_usage_errors(capsys: pytest.CaptureFixture[str], args: list[str], says: str) -> None:
    code, _, err = run(capsys, "simulate", *args)
    assert code == USAGE
    assert says in err


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_is_drawn_on_a_terminal_and_cleared(monkeypatch: pytest.MonkeyPatch) -> None:
    from wlmap.app.simulation import Progress  # noqa: PLC0415 - the unit under test

    screen = Terminal()
    monkeypatch.setattr("sys.stderr", screen)
    monkeypatch.delenv("CI", raising=False)
    progress = Progress(4)
    progress.step("bestfit seed 42")
    progress.step("bestfit seed 43")
    progress.close()
    drawn = screen.getvalue()
    assert "[--------------------] 0/4 bestfit seed 42" in drawn
    assert "[#####---------------] 1/4 bestfit seed 43" in drawn
    assert drawn.endswith("\r\x1b[K")
    monkeypatch.setenv("CI", "1")
    quiet = Terminal()
    monkeypatch.setattr("sys.stderr", quiet)
    Progress(2).step("random seed 1")
    assert quiet.getvalue() == ""
