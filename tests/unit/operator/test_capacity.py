"""The placement controller's capacity cache: the occupancy a plan starts from, kept from
node and pod events alone, with the pods a plan released counted before they are bound."""

from __future__ import annotations

import asyncio
import copy
import json
from typing import Any

from wlmap.operator.placing.capacity import CapacityCache, slim_pod
from wlmap.placement.feed import Intent, WorkloadGang
from wlmap.placement.gangs import make_gang_policy
from wlmap.placement.plan import plan_gangs, read_occupancy
from wlmap.sources.cluster import Cluster

LEVELS = ("topology.test/block", "topology.test/rack", "kubernetes.io/hostname")


def node(name: str, rack: str, gpus: int = 8, **spec: Any) -> dict[str, Any]:
    labels = dict(zip(LEVELS, ("b0", rack, name), strict=True))
    status = {"allocatable": {"nvidia.com/gpu": str(gpus), "cpu": "64", "memory": "512Gi"}}
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "uid": f"uid-{name}", "labels": labels},
        "spec": spec,
        "status": status,
    }


def pod(name: str, gpus: int, on: str | None = None, phase: str = "Running") -> dict[str, Any]:
    owner = {"kind": "Job", "name": name.rsplit("-", 1)[0], "controller": True, "uid": "j"}
    spec: dict[str, Any] = {
        "containers": [{"name": "c", "resources": {"limits": {"nvidia.com/gpu": str(gpus)}}}]
    }
    if on is not None:
        spec["nodeName"] = on
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": name,
            "namespace": "team",
            "uid": f"uid-{name}",
            "ownerReferences": [owner],
        },
        "spec": spec,
        "status": {"phase": phase},
    }


NODES = [node(f"r{r}-h{h}", f"r{r}") for r in range(2) for h in range(2)]


def fed(*objects: dict[str, Any]) -> CapacityCache:
    cache = CapacityCache(Cluster(api=None, context=None), None, None, LEVELS)
    for obj in objects:
        cache.observe("ADDED", obj)
    return cache


def free(cache: CapacityCache) -> dict[str, int]:
    occupancy = asyncio.run(cache.occupancy())
    nodes = occupancy.topology.nodes
    return {nodes[i].name: int(n) for i, n in enumerate(occupancy.capacity.node_free)}


def test_the_occupancy_from_events_is_the_one_a_dump_of_the_same_objects_gives() -> None:
    objects = [
        *NODES,
        pod("train-0", 8, "r0-h0"),
        pod("train-1", 4, "r0-h1"),
        pod("wait-0", 8),  # not bound: holds nothing
        pod("done-0", 8, "r1-h0", phase="Succeeded"),
    ]
    cache = fed(*objects)
    dump = read_occupancy(objects, LEVELS, lambda p: "", name="dump")
    names = [n.name for n in dump.topology.nodes]
    assert free(cache) == dict(zip(names, dump.capacity.node_free.tolist(), strict=True))
    assert free(cache) == {"r0-h0": 0, "r0-h1": 4, "r1-h0": 8, "r1-h1": 8}
    held = asyncio.run(cache.occupancy()).held
    assert sorted((h.workload, h.gpus, h.pods) for h in held) == [
        ("Job team/train", 4, 1),
        ("Job team/train", 8, 1),
    ]
    cache.observe("MODIFIED", pod("train-1", 4, "r0-h1", phase="Failed"))
    cache.observe("DELETED", pod("train-0", 8, "r0-h0"))
    assert free(cache) == {"r0-h0": 8, "r0-h1": 8, "r1-h0": 8, "r1-h1": 8}


def test_the_slim_pods_kept_count_as_the_whole_pods() -> None:
    pods = [
        pod("train-0", 8, "r0-h0"),
        pod("train-1", 4, "r0-h1"),
        pod("wait-0", 8),
        pod("done-0", 8, "r1-h0", phase="Succeeded"),
    ]
    for each in pods:  # what a pod carries besides: env, mounts, status, annotations
        each["spec"]["containers"][0]["env"] = [
            {"name": f"V{i}", "value": "x" * 40} for i in range(20)
        ]
        each["metadata"]["annotations"] = {"example.com/note": "y" * 400}
    whole, slim = fed(*NODES, *pods), fed(*NODES, *(slim_pod(copy.deepcopy(p)) for p in pods))
    assert free(slim) == free(whole)
    held = sorted((h.workload, h.node, h.gpus) for h in asyncio.run(slim.occupancy()).held)
    assert held == sorted((h.workload, h.node, h.gpus) for h in asyncio.run(whole.occupancy()).held)
    assert len(json.dumps(slim_pod(copy.deepcopy(pods[0])))) * 4 < len(json.dumps(pods[0]))


def test_node_heartbeats_keep_the_topology_and_a_cordon_rebuilds_it() -> None:
    cache = fed(*NODES)
    first = asyncio.run(cache.occupancy()).topology
    beat = node("r0-h0", "r0")
    beat["status"]["conditions"] = [{"type": "Ready", "status": "True"}]
    cache.observe("MODIFIED", beat)
    assert asyncio.run(cache.occupancy()).topology is first
    cache.observe("MODIFIED", node("r0-h0", "r0", unschedulable=True))
    assert set(free(cache)) == {"r0-h1", "r1-h0", "r1-h1"}


def test_a_released_gang_holds_its_planned_nodes_until_its_pods_are_bound() -> None:
    cache = fed(*NODES, pod("other-0", 8, "r0-h0"))
    gang = WorkloadGang(
        name="job",
        components=("job",),
        pods=2,
        gpus_per_pod=8,
        required=Intent(LEVELS[1], "test"),
    )
    occupancy = asyncio.run(cache.occupancy())
    (plan,) = plan_gangs(occupancy, [gang], make_gang_policy("wlmap"))
    assert plan.placement is not None and plan.domain[-1] == "r1"  # the empty rack
    members = [pod("job-0", 8), pod("job-1", 8)]
    pinned = cache.assume(members, plan.placement, occupancy, 8)
    assert sorted(pinned) == ["job-0", "job-1"] and set(pinned.values()) == {"r1-h0", "r1-h1"}
    assert all(map(cache.released, members))  # a stale gated copy is not planned again
    # the next plan, before kube-scheduler binds them, sees rack r1 taken
    assert free(cache) == {"r0-h0": 0, "r0-h1": 8, "r1-h0": 0, "r1-h1": 0}
    (again,) = plan_gangs(asyncio.run(cache.occupancy()), [gang], make_gang_policy("wlmap"))
    assert again.placement is None
    # bound (one on the other node of the rack than planned): the bindings count instead
    cache.observe("MODIFIED", pod("job-0", 8, "r1-h1"))
    cache.observe("MODIFIED", pod("job-1", 8, "r1-h0"))
    assert cache.assumed == 0 and not any(map(cache.released, members))
    assert free(cache) == {"r0-h0": 0, "r0-h1": 8, "r1-h0": 0, "r1-h1": 0}
    cache.observe("DELETED", pod("job-0", 8, "r1-h1"))
    assert free(cache)["r1-h1"] == 8


def test_a_failed_release_forgets_its_assumption() -> None:
    cache = fed(*NODES)
    gang = WorkloadGang(name="job", components=("job",), pods=1, gpus_per_pod=8)
    occupancy = asyncio.run(cache.occupancy())
    (plan,) = plan_gangs(occupancy, [gang], make_gang_policy("wlmap"))
    assert plan.placement is not None
    member = pod("job-0", 8)
    cache.assume([member], plan.placement, occupancy, 8)
    assert sum(free(cache).values()) == 24
    cache.forget([member])
    assert not cache.released(member)
    assert sum(free(cache).values()) == 32
