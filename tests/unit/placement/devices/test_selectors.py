"""CEL selectors decide which devices a request may use; a selector that fails or does not
give a bool stops planning with a message naming who holds it and on which device."""

from __future__ import annotations

import cel
import pytest

from tests.corpus import corpus_docs
from tests.unit.placement.devices._cluster import four_gpu_node
from wlmap.errors import PlacementInputError
from wlmap.placement.devices import Device, SelectorEngine, read_dra
from wlmap.placement.devices.selectors import __name__ as selectors_module


def device() -> Device:
    return read_dra([four_gpu_node("n1")]).devices[0]


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("device.attributes['gpu.nvidia.com'].productName == 'NVIDIA H100 80GB HBM3'", True),
        ('device.attributes["gpu.nvidia.com"].productName == "NVIDIA A100-SXM4-40GB"', False),
        ("device.driver == 'gpu.nvidia.com'", True),
        ("device.attributes['resource.kubernetes.io'].pcieRoot == 'pci0'", True),
        ("device.capacity['gpu.nvidia.com'].memory.compareTo(quantity('40Gi')) > 0", True),
        ("device.capacity['gpu.nvidia.com'].memory.isLessThan(quantity('40Gi'))", False),
        (
            "device.attributes['gpu.nvidia.com'].driverVersion.isGreaterThan(semver('550.0.0'))",
            True,
        ),
        ("device.attributes['gpu.nvidia.com'].driverVersion.isLessThan(semver('535.9.1'))", False),
        # a domain the device has nothing in is an empty map, as in the API
        ("has(device.attributes['dra.example.com'].model)", False),
        ("'model' in device.attributes['dra.example.com']", False),
    ],
)
def test_selector_result(expression: str, expected: bool) -> None:
    assert SelectorEngine().matches(device(), (expression,), "claim") is expected


@pytest.mark.parametrize(
    ("expression", "says"),
    [
        ("device.attributes['gpu.nvidia.com'].nvlinkDomain == 'x'", "no such key"),
        ("device.attributes['dra.example.com'].model == 'x'", "no such key"),
        ("device.attributes['gpu.nvidia.com'].index + 'a' == 1", "fails on device"),
        ("device.attributes['gpu.nvidia.com'].productName", "expected a bool"),
        ("device.capacity['gpu.nvidia.com'].memory", "expected a bool"),
        ("device.driver ==", "does not compile"),
        ("device.attributes['gpu.nvidia.com'].index / 0 == 1", "fails on device"),
        (
            "device.capacity['gpu.nvidia.com'].memory.isLessThan(quantity('lots'))",
            "invalid quantity 'lots'",
        ),
        ("device.attributes['gpu.nvidia.com'].productName.isLessThan(2)", "cannot compare"),
    ],
)
def test_selector_errors_name_the_holder_selector_and_device(
    expression: str, says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(PlacementInputError) as caught:
        SelectorEngine("claims.yaml").matches(
            device(), ("device.driver == 'gpu.nvidia.com'", expression), "DeviceClass gpu"
        )
    message = str(caught.value)
    assert message.startswith("claims.yaml: DeviceClass gpu selector #1: CEL expression")
    assert says in message
    if "compile" not in says:
        assert "gpu.nvidia.com/n1/gpu-0" in message
    assert capsys.readouterr().err == ""  # reported once, as the error, not also logged


def test_selectors_stop_at_the_first_false_one() -> None:
    # the second selector would fail, but the first already rejects the device
    found = SelectorEngine().matches(
        device(), ("device.driver == 'other'", "device.attributes['x'].y == 1"), "claim"
    )
    assert found is False


def test_each_distinct_expression_is_compiled_once(monkeypatch: pytest.MonkeyPatch) -> None:
    compiled: list[str] = []
    real = cel.compile

    def counting(expression: str) -> cel.Program:
        compiled.append(expression)
        return real(expression)

    monkeypatch.setattr(f"{selectors_module}.cel.compile", counting)
    engine = SelectorEngine()
    devices = read_dra([four_gpu_node("n1"), four_gpu_node("n2")]).devices
    for d in devices:
        engine.matches(d, ("device.driver == 'gpu.nvidia.com'",), "a")
        engine.matches(d, ("device.driver == 'gpu.nvidia.com'",), "b")
    assert compiled == ["device.driver == 'gpu.nvidia.com'"]


def test_mig_selectors_of_the_driver_examples_pick_by_multiprocessors() -> None:
    # the real selectors of two MIG requests, on devices shaped like MIG slices
    claim = read_dra(corpus_docs("dra-gpu/bats-gpu-multiple-mig.yaml")).claims
    (template,) = claim.values()
    small, large = (r.selectors for r in template.requests)
    mig = read_dra(
        [
            {
                "apiVersion": "resource.k8s.io/v1",
                "kind": "ResourceSlice",
                "metadata": {"name": "n1-mig"},
                "spec": {
                    "driver": "gpu.nvidia.com",
                    "pool": {"name": "n1"},
                    "nodeName": "n1",
                    "devices": [
                        {"name": "mig-1g", "capacity": {"multiprocessors": {"value": "16"}}},
                        {"name": "mig-4g", "capacity": {"multiprocessors": {"value": "64"}}},
                    ],
                },
            }
        ]
    ).devices
    engine = SelectorEngine()
    assert [engine.matches(d, small, "mig1") for d in mig] == [True, False]
    assert [engine.matches(d, large, "mig2") for d in mig] == [False, True]
