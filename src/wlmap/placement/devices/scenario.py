"""The SYNTHETIC fragmented DRA cluster and gang stream that ``wlmap simulate dra`` and
``benchmarks/placement_dra.py`` run.

Cluster: ``nodes`` nodes of 8 GPUs, each published as one ResourceSlice of the
``gpu.nvidia.com`` driver with the attributes the NVIDIA DRA driver publishes (``type``,
``productName``, ``architecture``, the standard ``resource.kubernetes.io/pcieRoot``: GPUs
0-3 under ``pci0``, 4-7 under ``pci1``) and a modelled ``gpu.nvidia.com/cliqueId``:
``clique_nodes`` consecutive nodes form one NVLink clique. Cliques alternate between H100
and A100 nodes. Before the stream starts, a random share ``fill`` of the GPUs (chosen with
the seed) is allocated and stays so: the fragmentation other workloads left.

Gangs: each has 1, 2 or 4 pods (probabilities .5/.3/.2), each pod one ResourceClaim from
a template asking for 1, 2 or 4 GPUs (.4/.35/.25) with ``matchAttribute:
resource.kubernetes.io/pcieRoot`` when it asks for more than one; 30 % of the gangs select
H100s with a CEL selector on ``productName``. Every gang needs all its GPUs in one NVLink
clique (a ComputeDomain), which DRA cannot express across pods. A gang holds its GPUs for
an exponential number of later arrivals (mean ``hold``), so the free capacity stays near
the pre-filled level.

Policies: ``first-fit`` places pods one by one as the in-tree allocator does, all or
nothing per gang; ``wlmap`` plans the whole gang at once (:class:`GangPlanner`);
``clique-first-fit`` is the same planner without its scoring.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from wlmap.placement.devices.device_state import DeviceState, PodClaims
from wlmap.placement.devices.gang_allocation import GangAllocation, aligned, first_fit_gang
from wlmap.placement.devices.gang_planner import GangPlanner
from wlmap.placement.devices.inventory import read_dra

__all__ = [
    "CLIQUE",
    "LABEL",
    "PCIE_ROOT",
    "POLICIES",
    "ScenarioRun",
    "cluster_objects",
    "gang_stream",
    "placer",
    "prefilled_state",
    "run_scenario",
]

LABEL = "SYNTHETIC fragmented DRA cluster"
DRIVER = "gpu.nvidia.com"
PCIE_ROOT = "resource.kubernetes.io/pcieRoot"
CLIQUE = "gpu.nvidia.com/cliqueId"
PRODUCTS = ("NVIDIA H100 80GB HBM3", "NVIDIA A100-SXM4-80GB")
H100 = "device.attributes['gpu.nvidia.com'].productName == 'NVIDIA H100 80GB HBM3'"
POLICIES = ("first-fit", "clique-first-fit", "wlmap")
GPU_CLASS: dict[str, Any] = {
    "apiVersion": "resource.k8s.io/v1",
    "kind": "DeviceClass",
    "metadata": {"name": "gpu.nvidia.com"},
    "spec": {
        "selectors": [
            {
                "cel": {
                    "expression": "device.driver == 'gpu.nvidia.com' && "
                    "device.attributes['gpu.nvidia.com'].type == 'gpu'"
                }
            }
        ]
    },
}

Placer = Callable[[Sequence[PodClaims]], GangAllocation | None]


def cluster_objects(nodes: int, clique_nodes: int = 4) -> list[dict[str, Any]]:
    """The GPU DeviceClass and the ResourceSlices of the cluster, one slice per node."""
    slices: list[dict[str, Any]] = [GPU_CLASS]
    for n in range(nodes):
        clique = n // clique_nodes
        product = PRODUCTS[clique % 2]
        devices = [
            {
                "name": f"gpu-{i}",
                "attributes": {
                    "type": {"string": "gpu"},
                    "productName": {"string": product},
                    "architecture": {"string": "Hopper" if "H100" in product else "Ampere"},
                    "cliqueId": {"string": f"clique-{clique}"},
                    PCIE_ROOT: {"string": f"pci{i // 4}"},
                },
                "capacity": {"memory": {"value": "80Gi"}},
            }
            for i in range(8)
        ]
        slices.append(
            {
                "apiVersion": "resource.k8s.io/v1",
                "kind": "ResourceSlice",
                "metadata": {"name": f"node-{n}-gpu"},
                "spec": {
                    "driver": DRIVER,
                    "pool": {"name": f"node-{n}", "generation": 1},
                    "nodeName": f"node-{n}",
                    "devices": devices,
                },
            }
        )
    return slices


def claim_template(name: str, gpus: int, h100: bool) -> dict[str, Any]:
    """A ResourceClaimTemplate for ``gpus`` GPUs, on one PCIe root when more than one."""
    exactly: dict[str, Any] = {"deviceClassName": "gpu.nvidia.com", "count": gpus}
    if h100:
        exactly["selectors"] = [{"cel": {"expression": H100}}]
    devices: dict[str, Any] = {"requests": [{"name": "gpus", "exactly": exactly}]}
    if gpus > 1:
        devices["constraints"] = [{"matchAttribute": PCIE_ROOT}]
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaimTemplate",
        "metadata": {"name": name, "namespace": "bench"},
        "spec": {"spec": {"devices": devices}},
    }


def gang_stream(
    gangs: int, hold: float, rng: random.Random, pods: Sequence[int] = (1, 2, 4)
) -> list[tuple[list[PodClaims], int]]:
    """Gangs in arrival order, each with the number of arrivals it holds its GPUs for.

    ``pods`` gives the gang sizes drawn (with the weights .5/.3/.2 for three sizes, equal
    weights otherwise).
    """
    shapes = {
        (g, h): claim_template(f"gpu{g}-{'h100' if h else 'any'}", g, h)
        for g in (1, 2, 4)
        for h in (False, True)
    }
    claims = read_dra(shapes.values(), "stream").claims
    weights = (0.5, 0.3, 0.2) if len(pods) == 3 else (1.0,) * len(pods)
    found = []
    for index in range(gangs):
        size = rng.choices(pods, weights)[0]
        gpus = rng.choices((1, 2, 4), (0.4, 0.35, 0.25))[0]
        h100 = rng.random() < 0.3
        claim = claims[f"gpu{gpus}-{'h100' if h100 else 'any'}"]
        members = [PodClaims(f"gang{index}-{p}", (claim,)) for p in range(size)]
        found.append((members, max(1, round(rng.expovariate(1 / hold)))))
    return found


def prefilled_state(
    nodes: int, fill: float, rng: random.Random, clique_nodes: int = 4
) -> DeviceState:
    """The cluster with a random share ``fill`` of its GPUs allocated."""
    state = DeviceState(read_dra(cluster_objects(nodes, clique_nodes), "cluster"))
    every = [d for n in state.nodes for d in state.devices(n)]
    state.take(rng.sample(every, round(len(every) * fill)))
    return state


def placer(policy: str, state: DeviceState, gang_attributes: Sequence[str] = (CLIQUE,)) -> Placer:
    """The function that gives a gang devices under ``policy`` (one of :data:`POLICIES`)."""
    if policy == "wlmap":
        return GangPlanner(state, gang_attributes, (PCIE_ROOT,)).plan
    if policy == "clique-first-fit":
        return GangPlanner(state, gang_attributes, (PCIE_ROOT,), score=False).plan
    if policy == "first-fit":
        return lambda pods: first_fit_gang(pods, state)
    raise ValueError(f"unknown policy {policy!r}: expected one of {', '.join(POLICIES)}")


@dataclass(frozen=True)
class ScenarioRun:
    """One run's result row (deterministic given the seed) and the seconds spent planning."""

    row: dict[str, Any]
    seconds: float


def run_scenario(
    policy: str, nodes: int, gangs: int, hold: float, seed: int, fill: float = 0.5
) -> ScenarioRun:
    """Offer the gang stream to ``policy`` on the pre-filled cluster.

    The row has the policy, seed, size, gangs allocated and aligned (one clique, and each
    claim's PCIe root), and their shares: of offered gangs (``allocation_rate``), of
    allocated gangs (``aligned_share``) and allocated-and-aligned of offered
    (``aligned_rate``).
    """
    rng = random.Random(seed)
    state = prefilled_state(nodes, fill, rng)
    arrivals = gang_stream(gangs, hold, rng)
    place = placer(policy, state)
    running: list[tuple[int, GangAllocation]] = []
    allocated = aligned_count = 0
    spent = 0.0
    for t, (pods, held) in enumerate(arrivals):
        for done in [r for r in running if r[0] <= t]:
            state.release(done[1].devices)
            running.remove(done)
        start = time.perf_counter()
        found = place(pods)
        spent += time.perf_counter() - start
        if found is None:
            continue
        allocated += 1
        aligned_count += aligned(found, [CLIQUE]) and all(
            aligned(GangAllocation((p,)), [PCIE_ROOT]) for p in found.pods
        )
        running.append((t + held, found))
    row = {
        "scenario": LABEL,
        "policy": policy,
        "seed": seed,
        "nodes": nodes,
        "fill": fill,
        "gangs": gangs,
        "allocated": allocated,
        "aligned": aligned_count,
        "allocation_rate": round(allocated / gangs, 4),
        "aligned_share": round(aligned_count / allocated, 4) if allocated else 0.0,
        "aligned_rate": round(aligned_count / gangs, 4),
    }
    return ScenarioRun(row, spent)
