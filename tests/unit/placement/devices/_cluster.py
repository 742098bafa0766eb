"""Small DRA clusters written as the API objects a driver publishes, for the tests.

Each node has one ResourceSlice of the ``gpu.nvidia.com`` driver; each GPU carries the
attributes the NVIDIA DRA driver publishes (``productName``, ``architecture``, ``type``,
the standard ``resource.kubernetes.io/pcieRoot``) plus a clique attribute standing for the
NVLink clique a ComputeDomain needs (modelled; GPU Feature Discovery puts it on a node
label).
"""

from __future__ import annotations

from typing import Any

from wlmap.placement.devices import CLIQUE, DRIVER, GPU_CLASS, PCIE_ROOT, DeviceState, read_dra

# The constants and the GPU DeviceClass are the scenario's, so tests and benchmark agree.
__all__ = [
    "CLIQUE",
    "DRIVER",
    "GPU_CLASS",
    "PCIE_ROOT",
    "claim_template",
    "four_gpu_node",
    "gpu",
    "node_slice",
    "state_of",
]


def gpu(
    index: int, root: str, clique: str = "A", product: str = "NVIDIA H100 80GB HBM3"
) -> dict[str, Any]:
    """One GPU device entry of a slice."""
    return {
        "name": f"gpu-{index}",
        "attributes": {
            "type": {"string": "gpu"},
            "index": {"int": index},
            "productName": {"string": product},
            "architecture": {"string": "Hopper"},
            "cliqueId": {"string": clique},
            "driverVersion": {"version": "550.54.15"},
            PCIE_ROOT: {"string": root},
        },
        "capacity": {"memory": {"value": "80Gi"}},
    }


def node_slice(node: str, devices: list[dict[str, Any]]) -> dict[str, Any]:
    """The ResourceSlice of one node."""
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceSlice",
        "metadata": {"name": f"{node}-gpu.nvidia.com"},
        "spec": {
            "driver": DRIVER,
            "pool": {"name": node, "generation": 1, "resourceSliceCount": 1},
            "nodeName": node,
            "devices": devices,
        },
    }


def four_gpu_node(node: str, clique: str = "A") -> dict[str, Any]:
    """A node of 4 GPUs: gpu-0/1 under PCIe root pci0, gpu-2/3 under pci1."""
    return node_slice(node, [gpu(i, f"pci{i // 2}", clique) for i in range(4)])


def claim_template(
    name: str, count: int, *, match: str | None = None, selectors: tuple[str, ...] = ()
) -> dict[str, Any]:
    """A ResourceClaimTemplate asking for ``count`` GPUs, optionally sharing ``match``."""
    exactly: dict[str, Any] = {"deviceClassName": "gpu.nvidia.com", "count": count}
    if selectors:
        exactly["selectors"] = [{"cel": {"expression": s}} for s in selectors]
    devices: dict[str, Any] = {"requests": [{"name": "gpus", "exactly": exactly}]}
    if match:
        devices["constraints"] = [{"matchAttribute": match}]
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaimTemplate",
        "metadata": {"name": name, "namespace": "ml"},
        "spec": {"spec": {"devices": devices}},
    }


def state_of(*objects: dict[str, Any], taken: dict[str, list[int]] | None = None) -> DeviceState:
    """A device state over the objects, with ``taken`` GPU indices per node allocated."""
    state = DeviceState(read_dra([GPU_CLASS, *objects], "cluster.yaml"))
    for node, indices in (taken or {}).items():
        state.take(d for d in state.devices(node) if d.name in {f"gpu-{i}" for i in indices})
    return state
