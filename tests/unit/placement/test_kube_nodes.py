"""Kubernetes node lists become placement nodes: allocatable resources, GPU model, labels,
taints; every bad item is reported with the file, the item and the field."""

from __future__ import annotations

import copy
import csv
import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.traces import openb
from wlmap.errors import PlacementInputError
from wlmap.placement.nodes import UNKNOWN_MODEL, nodes_from_objects, read_kube_nodes
from wlmap.placement.packing import read_openb_nodes

DATA = Path(__file__).parent / "data"
NODES = DATA / "nodes.yaml"


def node_list() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load(NODES.read_text(encoding="utf-8"))
    return loaded


def test_kubectl_yaml_list_gives_allocatable_capacity_model_labels_and_taints() -> None:
    dgx, l4, cpu = read_kube_nodes(NODES)
    assert (dgx.name, dgx.cpu_milli, dgx.memory_mib, dgx.gpus, dgx.gpu_model) == (
        "dgx-a100-01",
        255_900,
        2_113_286_652 // 1024,  # Ki to MiB, rounded down
        8,
        "NVIDIA-A100-SXM4-80GB",
    )
    assert dgx.labels["nvidia.com/gpu.count"] == "8"
    assert dgx.taints == ({"effect": "NoSchedule", "key": "nvidia.com/gpu", "value": "present"},)
    assert (l4.cpu_milli, l4.memory_mib, l4.gpus, l4.gpu_model, l4.taints) == (
        47_000,
        188 * 1024,
        2,
        "NVIDIA-L4",
        (),
    )
    assert (cpu.cpu_milli, cpu.memory_mib, cpu.gpus, cpu.gpu_model) == (15_890, 62_717, 0, None)


def test_json_single_node_and_multi_document_files_read_alike(tmp_path: Path) -> None:
    expected = read_kube_nodes(NODES)
    as_json = tmp_path / "nodes.json"
    as_json.write_text(json.dumps(node_list()), encoding="utf-8")
    assert read_kube_nodes(as_json) == expected
    single = tmp_path / "node.yaml"
    single.write_text(yaml.safe_dump(node_list()["items"][1]), encoding="utf-8")
    assert read_kube_nodes(single) == [expected[1]]
    documents = tmp_path / "nodes-docs.yaml"
    documents.write_text(yaml.safe_dump_all(node_list()["items"]), encoding="utf-8")
    assert read_kube_nodes(documents) == expected


def test_capacity_is_read_when_allocatable_is_absent() -> None:
    item = copy.deepcopy(node_list()["items"][0])
    del item["status"]["allocatable"]
    (node,) = nodes_from_objects([item])
    assert (node.cpu_milli, node.gpus) == (256_000, 8)


def test_gpu_node_without_the_product_label_has_the_unknown_model() -> None:
    item = copy.deepcopy(node_list()["items"][1])
    del item["metadata"]["labels"]["nvidia.com/gpu.product"]
    (node,) = nodes_from_objects([item])
    assert node.gpu_model == UNKNOWN_MODEL


def broken(path: Path, item: int, change: Any) -> Path:
    data = node_list()
    change(data["items"][item])
    out = path / "nodes.yaml"
    out.write_text(yaml.safe_dump(data), encoding="utf-8")
    return out


@pytest.mark.parametrize(
    ("item", "change", "column", "line_has", "says"),
    [
        (
            1,
            lambda n: n["status"]["allocatable"].update(cpu="47 cores"),
            "status.allocatable.cpu",
            "cpu: 47 cores",
            "invalid quantity '47 cores'",
        ),
        (
            1,
            lambda n: n["status"]["allocatable"].update(memory="-1Gi"),
            "status.allocatable.memory",
            "memory: -1Gi",
            "0 or more",
        ),
        (
            2,
            lambda n: n["status"]["allocatable"].pop("memory"),
            "status.allocatable.memory",
            "allocatable:",
            "expected the allocatable memory",
        ),
        (
            1,
            lambda n: n["status"]["allocatable"].update({"nvidia.com/gpu": "1500m"}),
            "status.allocatable.nvidia.com/gpu",
            "nvidia.com/gpu: 1500m",
            "whole number of GPUs",
        ),
        (2, lambda n: n.update(kind="Pod"), "kind", "kind: Pod", "expected kind Node, got 'Pod'"),
        (0, lambda n: n["metadata"].pop("name"), "metadata.name", "metadata:", "node's name"),
        (
            0,
            lambda n: n["spec"].update(taints="NoSchedule"),
            "spec.taints",
            "taints: NoSchedule",
            "list of taints",
        ),
    ],
)
def test_bad_items_are_located_to_line_field_and_item(
    tmp_path: Path, item: int, change: Any, column: str, line_has: str, says: str
) -> None:
    path = broken(tmp_path, item, change)
    with pytest.raises(PlacementInputError) as caught:
        read_kube_nodes(path)
    error = caught.value
    assert (error.file, error.column) == (str(path), column)
    assert error.row is not None
    assert line_has in path.read_text(encoding="utf-8").splitlines()[error.row - 1]
    message = str(error)
    assert message.startswith(f"{path} row {error.row} column {column!r}: items[{item}]")
    assert says in message


def test_an_item_without_status_is_located_to_the_item(tmp_path: Path) -> None:
    data = node_list()
    del data["items"][2]["status"]
    path = tmp_path / "nodes.json"
    path.write_text(json.dumps(data, indent=2), encoding="utf-8")
    with pytest.raises(PlacementInputError) as caught:
        read_kube_nodes(path)
    error = caught.value
    assert error.column == "status.allocatable"
    assert "items[2] (cpu-node-1): expected the node's allocatable resources" in str(error)
    assert error.row is not None
    assert path.read_text(encoding="utf-8").splitlines()[error.row - 1].strip() == "{"


def test_files_without_nodes_or_not_yaml_are_errors(tmp_path: Path) -> None:
    empty = tmp_path / "empty.yaml"
    empty.write_text("apiVersion: v1\nkind: List\nitems: []\n", encoding="utf-8")
    with pytest.raises(PlacementInputError, match="no Node objects"):
        read_kube_nodes(empty)
    garbage = tmp_path / "garbage.yaml"
    garbage.write_text("items: [unclosed\n", encoding="utf-8")
    with pytest.raises(PlacementInputError, match="not YAML or JSON") as caught:
        read_kube_nodes(garbage)
    assert caught.value.row == 2
    with pytest.raises(PlacementInputError, match="cannot read it"):
        read_kube_nodes(tmp_path / "absent.yaml")


def openb_node_yaml(row: dict[str, str]) -> dict[str, Any]:
    """One node in the shape of the node dump published with openb (node_yaml/)."""
    gpus = row["gpu"]
    resources = {"cpu": f"{row['cpu_milli']}m", "memory": f"{row['memory_mib']}Mi", "pods": "1001"}
    labels = {"kubernetes.io/hostname": row["sn"], "kubernetes.io/os": "linux"}
    if int(gpus):
        resources |= {
            "alibabacloud.com/gpu-count": gpus,
            "alibabacloud.com/gpu-milli": str(int(gpus) * 1000),
        }
        labels["alibabacloud.com/gpu-card-model"] = row["model"]
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"labels": labels, "name": row["sn"]},
        "status": {"allocatable": resources, "capacity": resources},
    }


def test_the_openb_node_dump_reads_as_the_openb_node_list(tmp_path: Path) -> None:
    listed = openb("all_node")
    with listed.open(newline="", encoding="utf-8") as handle:
        documents = [openb_node_yaml(row) for row in csv.DictReader(handle)]
    dump = tmp_path / "openb_node_list_all_node.yaml"
    dump.write_text(yaml.safe_dump_all(documents), encoding="utf-8")
    read = read_kube_nodes(dump)
    expected = read_openb_nodes(listed)
    assert [(n.name, n.cpu_milli, n.memory_mib, n.gpus, n.gpu_model) for n in read] == [
        (n.name, n.cpu_milli, n.memory_mib, n.gpus, n.gpu_model) for n in expected
    ]
