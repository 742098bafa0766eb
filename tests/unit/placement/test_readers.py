"""The openb readers on the real trace files, and the located errors for bad ones."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from tests.traces import openb
from wlmap.cli._exits import UNREADABLE_INPUT, code_for
from wlmap.errors import PlacementInputError
from wlmap.placement.packing import read_openb_nodes, read_openb_pods


def test_gpu_node_list_matches_the_published_cluster() -> None:
    nodes = read_openb_nodes(openb("gpu_node"))
    assert len(nodes) == 1213
    gpus = Counter[str]()
    for node in nodes:
        assert node.gpu_model is not None
        gpus[node.gpu_model] += node.gpus
    assert sum(gpus.values()) == 6212
    assert gpus["G2"] == 4392
    assert gpus["T4"] == 842


def test_all_node_list_has_cpu_only_nodes_without_a_model() -> None:
    nodes = read_openb_nodes(openb("all_node"))
    cpu_only = [n for n in nodes if n.gpus == 0]
    assert len(nodes) == 1523
    assert len(cpu_only) == 310
    assert all(n.gpu_model is None for n in cpu_only)


def test_default_pod_list_classes_and_demand() -> None:
    pods = read_openb_pods(openb("default"))
    classes = Counter(p.pod_class for p in pods)
    assert len(pods) == 8152
    assert classes["cpu-only"] == 1088
    assert classes["shared"] == 3078
    assert classes["multi-gpu"] == 75
    assert round(sum(p.gpu_demand_milli for p in pods) / 1000) == 6087
    assert all(p.gpu_models is None for p in pods)


def test_gpuspec_models_are_parsed_and_deduplicated() -> None:
    pods = read_openb_pods(openb("gpuspec25"))
    constrained = [p for p in pods if p.gpu_models]
    assert len(constrained) == 1759
    for pod in constrained:
        assert all(m and "|" not in m for m in pod.gpu_models or ())


def test_five_column_multigpu_list_reads_without_gpu_spec() -> None:
    pods = read_openb_pods(openb("multigpu20"))
    assert len(pods) == 8324
    assert sum(1 for p in pods if p.num_gpu > 1) == 247


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "bad.csv"
    path.write_text(text, encoding="utf-8")
    return path


POD_HEADER = "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec\n"


@pytest.mark.parametrize(
    ("body", "row", "column", "words"),
    [
        ("p0,1000,10,1,500,\np1,abc,10,1,500,\n", 3, "cpu_milli", "whole number"),
        ("p0,1000,-5,1,500,\n", 2, "memory_mib", ">= 0"),
        ("p0,1000,10,1,1500,\n", 2, "gpu_milli", "<= 1000"),
        ("p0,1000,10,2,500,\n", 2, "gpu_milli", "whole GPUs"),
        ("p0,1000,10,0,500,\n", 2, "gpu_milli", "both be 0"),
    ],
)
def test_bad_pod_value_names_file_row_and_column(
    tmp_path: Path, body: str, row: int, column: str, words: str
) -> None:
    path = write(tmp_path, POD_HEADER + body)
    with pytest.raises(PlacementInputError) as caught:
        read_openb_pods(path)
    error = caught.value
    assert (error.file, error.row, error.column) == (str(path), row, column)
    assert str(path) in str(error)
    assert f"row {row}" in str(error)
    assert repr(column) in str(error)
    assert words in str(error)


def test_missing_column_is_reported_on_the_header(tmp_path: Path) -> None:
    path = write(tmp_path, "name,cpu_milli,num_gpu,gpu_milli\np0,1,0,0\n")
    with pytest.raises(PlacementInputError) as caught:
        read_openb_pods(path)
    assert (caught.value.row, caught.value.column) == (1, "memory_mib")


def test_short_row_is_reported(tmp_path: Path) -> None:
    path = write(tmp_path, "sn,cpu_milli,memory_mib,gpu,model\nn0,1000,10\n")
    with pytest.raises(PlacementInputError, match="row 2") as caught:
        read_openb_nodes(path)
    assert caught.value.column is None


def test_node_with_gpus_but_no_model(tmp_path: Path) -> None:
    path = write(tmp_path, "sn,cpu_milli,memory_mib,gpu,model\nn0,1000,10,2,\n")
    with pytest.raises(PlacementInputError) as caught:
        read_openb_nodes(path)
    assert (caught.value.row, caught.value.column) == (2, "model")


def test_duplicate_node_name_points_at_the_first(tmp_path: Path) -> None:
    path = write(tmp_path, "sn,cpu_milli,memory_mib,gpu,model\nn0,1,1,1,T4\nn0,1,1,1,T4\n")
    with pytest.raises(PlacementInputError, match="line 2") as caught:
        read_openb_nodes(path)
    assert (caught.value.row, caught.value.column) == (3, "sn")


def test_missing_and_empty_files(tmp_path: Path) -> None:
    with pytest.raises(PlacementInputError, match="cannot open") as caught:
        read_openb_nodes(tmp_path / "absent.csv")
    assert caught.value.row is None
    with pytest.raises(PlacementInputError, match="empty file"):
        read_openb_pods(write(tmp_path, ""))


def test_cli_maps_the_error_to_the_bad_input_exit_code(tmp_path: Path) -> None:
    error = PlacementInputError("x", file="f.csv", row=2, column="gpu")
    assert code_for(error) == UNREADABLE_INPUT
