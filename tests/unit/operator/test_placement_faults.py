"""Faults, live: which nodes count as faulty, where a gang's replacements go (its domain,
the faulty node excluded, no healthy pod moved, or nowhere when the domain is full), and
the grants evicting needs, only with placement."""

from __future__ import annotations

from typing import Any

from wlmap.operator.deploy import rbac
from wlmap.operator.placing._fault_plan import plan_replacement
from wlmap.operator.placing.capacity import workload_of
from wlmap.operator.placing.node_faults import GPU_CONDITION, GPU_TAINT, fault_of, without_faulty
from wlmap.placement.feed import Intent, WorkloadGang
from wlmap.placement.plan import read_occupancy

BLOCK, RACK, HOST = "topology.test/block", "topology.test/rack", "kubernetes.io/hostname"
LEVELS = (BLOCK, RACK, HOST)
GPU = "nvidia.com/gpu"


def _node(name: str, rack: str, ready: str = "True", **extra: Any) -> dict[str, Any]:
    resources = {"cpu": "64", "memory": "512Gi", GPU: "8"}
    node: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": {BLOCK: "b0", RACK: rack, HOST: name}},
        "spec": {"taints": extra.get("taints", [])},
        "status": {
            "allocatable": resources,
            "capacity": resources,
            "conditions": [{"type": "Ready", "status": ready}, *extra.get("conditions", [])],
        },
    }
    return node


def _pod(name: str, node: str, gpus: int, owner: str = "train") -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": name,
            "namespace": "team",
            "ownerReferences": [{"kind": "Job", "name": owner, "uid": owner, "controller": True}],
        },
        "spec": {
            "nodeName": node,
            "containers": [{"name": "c", "resources": {"limits": {GPU: str(gpus)}}}],
        },
        "status": {"phase": "Running"},
    }


def _cluster() -> list[dict[str, Any]]:
    """Two racks of four 8-GPU nodes; a gang of 4 x 4 GPUs on r0-n0 and r0-n1."""
    nodes = [_node(f"{r}-n{i}", r) for r in ("r0", "r1") for i in range(4)]
    pods = [_pod(f"w{i}", f"r0-n{i // 2}", 4) for i in range(4)]
    return [*nodes, *pods]


GANG = WorkloadGang(
    "Job team/train gang", ("worker",), 4, 4, required=Intent(RACK, "annotation on worker")
)


def test_a_node_is_faulty_when_not_ready_unreachable_or_its_gpus_are_unhealthy() -> None:
    assert fault_of(_node("a", "r0")) is None
    assert fault_of(_node("a", "r0", ready="False")) == "NotReady"
    assert fault_of(_node("a", "r0", ready="Unknown")) == "Unreachable"
    unreachable = {"key": "node.kubernetes.io/unreachable", "effect": "NoExecute"}
    assert fault_of(_node("a", "r0", taints=[unreachable])) == "Unreachable"
    gpu_taint = {"key": GPU_TAINT, "effect": "NoSchedule"}
    assert fault_of(_node("a", "r0", taints=[gpu_taint])) == "GPUUnhealthy"
    gpu = [{"type": GPU_CONDITION, "status": "True"}]
    assert fault_of(_node("a", "r0", conditions=gpu)) == "GPUUnhealthy"
    gpu_ok = [{"type": GPU_CONDITION, "status": "False"}]
    assert fault_of(_node("a", "r0", conditions=gpu_ok)) is None
    other = {"key": "team/reserved", "effect": "NoSchedule"}  # not a fault
    assert fault_of(_node("a", "r0", taints=[other])) is None


def test_a_fresh_plan_leaves_faulty_nodes_out() -> None:
    objects = [*_cluster(), _node("r1-bad", "r1", ready="False")]
    occupancy = read_occupancy(without_faulty(objects), LEVELS, workload_of, name="cluster")
    names = {node.name for node in occupancy.topology.nodes}
    assert "r1-bad" not in names and "r1-n0" in names


def test_replacements_go_to_the_gangs_rack_without_the_faulty_node() -> None:
    objects = _cluster()
    # r0-n0 failed: its two pods were evicted; w2 and w3 still run on r0-n1
    survivors = [p for p in objects if p["kind"] == "Pod" and p["metadata"]["name"] in {"w2", "w3"}]
    answer = plan_replacement(
        objects,
        LEVELS,
        "wlmap",
        GANG,
        survivors,
        2,
        ["r0-n0", "r0-n0"],
        {"r0-n0": "NotReady"},
        workload_of,
    )
    assert answer.term is not None
    expressions = answer.term["matchExpressions"]
    assert {"key": RACK, "operator": "In", "values": ["r0"]} in expressions
    assert {"key": BLOCK, "operator": "In", "values": ["b0"]} in expressions
    assert {"key": HOST, "operator": "NotIn", "values": ["r0-n0"]} in expressions
    assert "2 pod(s) of 4 GPU(s) placed in rack b0/r0" in answer.message


def test_replacements_wait_when_the_gangs_rack_is_full() -> None:
    objects = _cluster()
    # another workload fills the rest of r0: only the faulty node had room
    objects += [_pod(f"other{i}", f"r0-n{i}", 8, owner="other") for i in (2, 3)]
    survivors = [p for p in objects if p["kind"] == "Pod" and p["metadata"]["name"] in {"w2", "w3"}]
    answer = plan_replacement(
        objects, LEVELS, "wlmap", GANG, survivors, 2, ["r0-n0"], {"r0-n0": "NotReady"}, workload_of
    )
    assert answer.term is None
    assert answer.message.startswith("Job team/train gang: 2 pod(s) of 4 GPU(s) wait for room")


def test_evicting_and_watching_nodes_are_granted_only_with_placement() -> None:
    def verbs(rules: list[dict[str, Any]], resource: str) -> set[str]:
        return {
            verb
            for rule in rules
            if "" in rule["apiGroups"] and resource in rule["resources"]
            for verb in rule["verbs"]
        }

    assert verbs(rbac.namespaced_rules(), "pods/eviction") == set()
    assert verbs(rbac.namespaced_rules(placement=True), "pods/eviction") == {"create"}
    assert verbs(rbac.cluster_rules(placement=True), "pods/eviction") == set()
    assert verbs(rbac.cluster_rules(), "nodes") == set()
    assert verbs(rbac.cluster_rules(placement=True), "nodes") == {"list", "watch"}
