"""DRA objects are read from kubectl dumps; bad input is an error naming the file, the
object and the field, and saying what was expected."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.corpus import CORPUS, corpus_docs, corpus_params
from tests.unit.placement.devices._cluster import (
    GPU_CLASS,
    PCIE_ROOT,
    claim_template,
    four_gpu_node,
)
from wlmap.errors import PlacementInputError
from wlmap.placement.devices import (
    Constraint,
    DeviceState,
    Request,
    Version,
    read_dra,
    read_dra_file,
)


def test_a_kubectl_list_dump_gives_devices_in_slice_order(tmp_path: Path) -> None:
    dump = {
        "apiVersion": "v1",
        "kind": "List",
        "items": [four_gpu_node("n2"), four_gpu_node("n1"), GPU_CLASS],
    }
    path = tmp_path / "dump.yaml"
    path.write_text(yaml.safe_dump(dump))
    inventory = read_dra_file(path)
    assert [(d.node, d.name) for d in inventory.devices][:5] == [
        ("n2", "gpu-0"),
        ("n2", "gpu-1"),
        ("n2", "gpu-2"),
        ("n2", "gpu-3"),
        ("n1", "gpu-0"),
    ]
    first = inventory.devices[0]
    # short names are qualified with the driver; typed values and quantities kept
    assert first.attributes["gpu.nvidia.com/index"] == 0
    assert first.attributes["gpu.nvidia.com/driverVersion"] == Version("550.54.15")
    assert first.attributes[PCIE_ROOT] == "pci0"
    assert first.capacity["gpu.nvidia.com/memory"] == 80 * 2**30
    assert list(inventory.classes) == ["gpu.nvidia.com"]


def test_only_the_newest_generation_of_a_pool_counts() -> None:
    old = four_gpu_node("n1")
    new = copy.deepcopy(old)
    new["spec"]["pool"]["generation"] = 2
    new["spec"]["devices"] = new["spec"]["devices"][:2]
    assert len(read_dra([old, new]).devices) == 2


def test_a_device_tainted_to_keep_claims_off_is_never_free() -> None:
    """NoSchedule and NoExecute taints keep the device from new claims, as the scheduler's
    allocator does; a None taint is only said. Releasing it does not free it."""
    node = copy.deepcopy(NODE)
    effects = ("NoSchedule", "NoExecute", "None")
    for index, effect in enumerate(effects):
        taint = {"key": "gpu.nvidia.com/unhealthy", "effect": effect}
        node["spec"]["devices"][index]["taints"] = [taint]
    inventory = read_dra([node], "dump.yaml")
    assert [d.taints for d in inventory.devices[:4]] == [
        ("gpu.nvidia.com/unhealthy=NoSchedule",),
        ("gpu.nvidia.com/unhealthy=NoExecute",),
        (),
        (),
    ]
    state = DeviceState(inventory)
    free = [d.name for d in state.free_devices()]
    assert free == [d.name for d in inventory.devices[2:]]
    state.release(inventory.devices[:2])
    assert [d.name for d in state.free_devices()] == free


def test_claim_template_with_constraint_and_first_available() -> None:
    template = claim_template("pair", 2, match=PCIE_ROOT)
    template["spec"]["spec"]["devices"]["requests"].append(
        {
            "name": "nic",
            "firstAvailable": [
                {"name": "fast", "deviceClassName": "nic.example.com", "count": 2},
                {"name": "slow", "deviceClassName": "nic.example.com"},
            ],
        }
    )
    claim = read_dra([template]).claims["pair"]
    assert claim.name == "ResourceClaimTemplate ml/pair"
    assert claim.requests[0] == Request("gpus", "gpu.nvidia.com", count=2)
    assert [a.name for a in claim.requests[1].alternatives] == ["nic/fast", "nic/slow"]
    assert claim.constraints == (Constraint(PCIE_ROOT),)


@pytest.mark.parametrize(
    "path",
    corpus_params(sorted((CORPUS / "dra-gpu").glob("*.yaml")) if CORPUS.exists() else []),
)
def test_every_dra_example_of_the_corpus_reads(path: Path) -> None:
    relative = str(path.relative_to(CORPUS))
    inventory = read_dra(corpus_docs(relative), relative)
    for claim in inventory.claims.values():
        assert claim.requests


def _bad(obj: dict[str, Any], edit: str, value: Any) -> dict[str, Any]:
    obj = copy.deepcopy(obj)
    *parents, last = edit.split(".")
    at: Any = obj
    for key in parents:
        at = at[int(key)] if key.isdigit() else at[key]
    if value is _DELETE:
        del at[last]
    else:
        at[int(last) if last.isdigit() else last] = value
    return obj


_DELETE = object()
NODE = four_gpu_node("n1")
TEMPLATE = claim_template("pair", 2, match=PCIE_ROOT)


@pytest.mark.parametrize(
    ("obj", "edit", "value", "expected"),
    [
        (
            NODE,
            "spec.driver",
            _DELETE,
            "ResourceSlice n1-gpu.nvidia.com at spec.driver: expected a non-empty string, got None",
        ),
        (
            NODE,
            "spec.devices.0.attributes.index",
            {"int": "3"},
            "at spec.devices[0].attributes['index'].int: expected a value of type int, got '3'",
        ),
        (
            NODE,
            "spec.devices.1.attributes.index",
            {"int": 1, "string": "1"},
            "at spec.devices[1].attributes['index']: expected exactly one of int, bool, string, version",
        ),
        (
            NODE,
            "spec.devices.0.attributes.index",
            {"bool": 1},
            "attributes['index'].bool: expected a value of type bool, got 1",
        ),
        (
            NODE,
            "spec.devices.2.capacity.memory",
            {"value": "80 GB"},
            "at spec.devices[2].capacity['memory'].value: expected a quantity, got '80 GB'",
        ),
        (NODE, "spec.nodeName", _DELETE, "at spec: expected nodeName or allNodes: true"),
        (NODE, "spec.devices", {"gpu-0": {}}, "at spec.devices: expected a list"),
        (NODE, "spec.devices.0.taints", {"key": "x"}, "at spec.devices[0].taints: expected a list"),
        (
            NODE,
            "spec.devices.0.taints",
            [{"key": "gpu.nvidia.com/xid"}],
            "at spec.devices[0].taints[0].effect: expected a non-empty string",
        ),
        (
            TEMPLATE,
            "spec.spec.devices.requests.0.exactly.count",
            0,
            "ResourceClaimTemplate ml/pair at spec.spec.devices.requests[0].exactly.count: expected a positive whole number, got 0",
        ),
        (
            TEMPLATE,
            "spec.spec.devices.requests.0.exactly.allocationMode",
            "Some",
            "allocationMode: expected ExactCount or All, got 'Some'",
        ),
        (
            TEMPLATE,
            "spec.spec.devices.constraints.0.requests",
            ["nic"],
            "constraints[0].requests: names requests the claim does not have: nic",
        ),
        (
            TEMPLATE,
            "spec.spec.devices.constraints.0.matchAttribute",
            "pcieRoot",
            "expected a fully qualified name <domain>/<name>, got 'pcieRoot'",
        ),
        (
            TEMPLATE,
            "spec.spec.devices.constraints.0",
            {"distinctAttribute": PCIE_ROOT},
            "distinctAttribute is not modelled",
        ),
        (
            TEMPLATE,
            "spec.spec.devices.requests.0.exactly.selectors",
            [{"cel": "x"}],
            "selectors[0].cel: expected a mapping, got 'x'",
        ),
        (
            GPU_CLASS,
            "spec.selectors.0.cel.expression",
            "",
            "DeviceClass gpu.nvidia.com at spec.selectors[0].cel.expression: expected a non-empty string",
        ),
    ],
)
def test_bad_input_is_located(obj: dict[str, Any], edit: str, value: Any, expected: str) -> None:
    with pytest.raises(PlacementInputError) as caught:
        read_dra([_bad(obj, edit, value)], "dump.yaml")
    assert str(caught.value).startswith("dump.yaml: ")
    assert expected in str(caught.value)


def test_an_unreadable_file_is_an_input_error(tmp_path: Path) -> None:
    path = tmp_path / "dump.yaml"
    path.write_text("items: [unclosed")
    with pytest.raises(PlacementInputError, match=r"dump\.yaml: cannot read DRA objects"):
        read_dra_file(path)
