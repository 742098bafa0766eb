"""Plans on the dump: a gang that fits lands in one domain of its required level on nodes
with room; one that does not names the binding level and resource, and whose pods finishing
would make room (worked out by hand from the dump's comment)."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from tests.unit.placement.plan.inputs import (
    LWS,
    corpus_objects,
    dump_objects,
    found,
    gpu_job,
    occupancy,
)
from wlmap.placement.feed import gang_requests
from wlmap.placement.gangs import make_gang_policy
from wlmap.placement.plan import GangPlan, Occupancy, plan_gangs


def plan(
    obj: dict[str, Any], state: Occupancy | None = None, policy: str = "wlmap"
) -> list[GangPlan]:
    state = state or occupancy()
    item = found(obj)
    requests = gang_requests(item.view, annotations=obj["metadata"].get("annotations"))
    return plan_gangs(state, requests, make_gang_policy(policy))


@pytest.mark.parametrize("policy", ["wlmap", "kueue-bestfit"])
def test_a_gang_that_fits_lands_in_one_rack_on_nodes_with_room(policy: str) -> None:
    state = occupancy()
    before = copy.deepcopy(state.capacity.node_free)
    (result,) = plan(gpu_job(3, 4), state, policy)
    assert result.fits and result.placement is not None
    topology = state.topology
    racks = {
        topology.domain_name(1, int(topology.node_domain[1][n])) for n, _ in result.placement.nodes
    }
    assert len(racks) == 1 and result.level is not None and result.level >= 1
    for node, pods in result.placement.nodes:
        assert pods * 4 <= before[node]
    data = result.to_dict(topology)
    assert data["topologyAssignment"]["levels"][-1] == "kubernetes.io/hostname"
    assert sum(d["count"] for d in data["topologyAssignment"]["domains"]) == 3
    assert data["domain"]["values"][:2] == list(result.domain[:2])
    assert data["reason"]


def test_a_gang_larger_than_any_free_rack_names_the_rack_and_the_workloads_in_the_way() -> None:
    (result,) = plan(gpu_job(4, 4))
    assert not result.fits and result.shortfall is not None
    short = result.shortfall
    assert (short.level, short.needed_gpus, short.best_free) == (
        "cloud.provider.com/topology-rack", 16, 12,
    )  # fmt: skip
    assert short.fits_when_empty == 4
    # each of train-x's Jobs (three workloads under the owner rule of these tests, which
    # stops at the Job) frees 4 GPUs in a rack of 12 free; pretrain's 8 free rack b1/r1 too,
    # but the fewest GPUs come first and three are listed
    assert [(r.workloads, r.gpus, r.domains, r.where) for r in short.reliefs] == [
        (("team-b/train-x-worker-0",), 4, 1, ("b1/r2",)),
        (("team-b/train-x-worker-1",), 4, 1, ("b2/r1",)),
        (("team-b/train-x-worker-2",), 4, 1, ("b2/r2",)),
    ]
    assert short.text.startswith(
        "needs 16 GPUs (4 pods x 4) in one rack (required level cloud.provider.com/topology-rack); "
        "the emptiest rack, b1/r2, has 12 free; "
        "1 rack would fit if the pods of team-b/train-x-worker-0 finished "
        "(it holds 4 GPUs in rack b1/r2); "
    )


def pod(name: str, node: str, gpus: int) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": f"{name}-0", "namespace": "team-e", "ownerReferences": [
            {"apiVersion": "batch/v1", "kind": "Job", "name": name, "uid": name, "controller": True}
        ]},
        "spec": {"nodeName": node, "containers": [
            {"name": "main", "resources": {"limits": {"nvidia.com/gpu": str(gpus)}}}
        ]},
        "status": {"phase": "Running"},
    }  # fmt: skip


def test_when_no_workload_alone_makes_room_the_roomiest_racks_holders_are_added() -> None:
    nodes = [o for o in dump_objects() if o["kind"] == "Node"]
    # every GPU node keeps 6 free: a rack has room for two pods of 4, one per node; freeing
    # one node's holder gives three; only both holders of one rack give four
    pods = [
        pod(f"hold-{n['metadata']['name']}", n["metadata"]["name"], 2)
        for n in nodes
        if n["metadata"]["name"].startswith("gpu-")
    ]
    (result,) = plan(gpu_job(4, 4), occupancy([*nodes, *pods]))
    assert result.shortfall is not None
    (relief,) = result.shortfall.reliefs
    assert relief.workloads == ("team-e/hold-gpu-b1-r1-a", "team-e/hold-gpu-b1-r1-b")
    assert (relief.gpus, relief.domains, relief.where) == (4, 1, ("b1/r1",))
    assert result.shortfall.text.endswith(
        "1 rack would fit if the pods of team-e/hold-gpu-b1-r1-a and team-e/hold-gpu-b1-r1-b "
        "finished (they hold 4 GPUs in rack b1/r1)"
    )


def test_free_gpus_split_across_nodes_are_named_as_the_constraint() -> None:
    nodes = [o for o in dump_objects() if o["kind"] == "Node"]
    pods = [pod(f"hold-{n['metadata']['name']}", n["metadata"]["name"], 2) for n in nodes]
    (result,) = plan(gpu_job(3, 4), occupancy([*nodes, *pods]))
    assert result.shortfall is not None
    assert (
        "the emptiest rack, b1/r1, has 12 free but room for only 2 pods of 4 "
        "(its free GPUs are split across nodes)"
    ) in result.shortfall.text


def test_a_rack_too_small_even_when_empty_says_so() -> None:
    objects = copy.deepcopy(dump_objects())
    for obj in objects:
        if obj["kind"] == "Node":
            obj["status"]["allocatable"]["nvidia.com/gpu"] = "6"
    (result,) = plan(gpu_job(3, 4), occupancy(objects))
    assert result.shortfall is not None and result.shortfall.reliefs == ()
    assert result.shortfall.text.endswith(
        "no rack could hold it even with every GPU free (the roomiest takes 2 pods of 4)"
    )


def test_a_pod_larger_than_every_node_says_so() -> None:
    (result,) = plan(gpu_job(1, 16))
    assert result.shortfall is not None
    assert (
        result.shortfall.text
        == "needs 16 GPUs (1 pods x 16); no node has 16 GPUs (the largest has 8)"
    )


def test_gangs_of_one_workload_are_placed_in_turn() -> None:
    state = occupancy()
    free = int(state.capacity.node_free.sum())
    (lws,) = corpus_objects(LWS)
    first, second = plan(lws, state)
    assert first.fits and second.fits
    assert int(state.capacity.node_free.sum()) == free - 4  # two groups of two 1-GPU workers
    assert first.request.name.endswith("#0") and second.request.name.endswith("#1")
