"""The harness's real parts at work: the Job and StatefulSet controllers create pods,
kube-scheduler binds them to KWOK's fake GPU nodes inside the topology domain a node
selector names, KWOK runs them, and the garbage collector removes them with their owner.

Nothing here writes a pod or its status by hand: every pod seen was made by a controller,
placed by the scheduler and run by KWOK.
"""

from __future__ import annotations

import pytest

from tests.integration.conftest import terminal
from tests.integration.fakenodes import (
    BLOCK_LABEL,
    GPU,
    HOST_LABEL,
    RACK_LABEL,
    KwokCluster,
    is_ready,
)
from tests.integration.kube import wait_for
from tests.integration.kwokpods import placement, pod_template, running

SCALE = 200  # fake nodes the fixture registers at least, to show the harness at size
GANG = 4


def test_a_jobs_pods_are_bound_inside_the_selected_rack_run_and_go_with_the_job(
    kwok_cluster: KwokCluster, kwok_namespace: str
) -> None:
    kube, rack = kwok_cluster.kube, "b1-r2"
    job = kube.create(
        {
            "apiVersion": "batch/v1",
            "kind": "Job",
            "metadata": {"name": "train"},
            "spec": {
                "parallelism": GANG,
                "completions": GANG,
                "template": pod_template(
                    {RACK_LABEL: rack}, kwok_cluster.topology.gpus, {}, restart="Never"
                ),
            },
        },
        kwok_namespace,
    )
    pods = wait_for(running(kube, kwok_namespace, job, GANG), f"{GANG} Running pods of the Job")
    where = placement(kwok_cluster, pods)
    assert {labels[RACK_LABEL] for labels in where.values()} == {rack}
    # each pod asks for every GPU of a node: the scheduler gave each a node of its own
    assert len({labels[HOST_LABEL] for labels in where.values()}) == GANG
    kube.delete(job)
    wait_for(lambda: not kube.list("v1", "Pod", kwok_namespace), "the Job's pods removed")


def test_a_statefulsets_pods_are_bound_inside_the_selected_block_ready_and_go_with_it(
    kwok_cluster: KwokCluster, kwok_namespace: str
) -> None:
    kube, block = kwok_cluster.kube, "b2"
    labels = {"app": "serve"}
    statefulset = kube.create(
        {
            "apiVersion": "apps/v1",
            "kind": "StatefulSet",
            "metadata": {"name": "serve"},
            "spec": {
                "replicas": GANG,
                "serviceName": "serve",
                "selector": {"matchLabels": labels},
                "template": pod_template({BLOCK_LABEL: block}, 2, labels),
            },
        },
        kwok_namespace,
    )
    # pods come one after the other: each only once the one before it is Ready
    pods = wait_for(running(kube, kwok_namespace, statefulset, GANG), f"{GANG} Running pods")
    assert sorted(pod["metadata"]["name"] for pod in pods) == [f"serve-{i}" for i in range(GANG)]
    assert all(is_ready(pod) for pod in pods)
    assert {labels[BLOCK_LABEL] for labels in placement(kwok_cluster, pods).values()} == {block}
    kube.delete(statefulset)
    wait_for(lambda: not kube.list("v1", "Pod", kwok_namespace), "the StatefulSet's pods removed")


def test_hundreds_of_fake_gpu_nodes_are_registered_and_ready(
    kwok_cluster: KwokCluster, pytestconfig: pytest.Config
) -> None:
    nodes = kwok_cluster.nodes()
    assert len(nodes) == kwok_cluster.topology.size >= SCALE
    assert all(is_ready(node) for node in nodes.values())
    assert not [name for name, node in nodes.items() if node["spec"].get("taints")]
    gpus = {node["status"]["allocatable"].get(GPU) for node in nodes.values()}
    assert gpus == {str(kwok_cluster.topology.gpus)}
    racks = {
        (node["metadata"]["labels"][BLOCK_LABEL], node["metadata"]["labels"][RACK_LABEL])
        for node in nodes.values()
    }
    assert len(racks) == kwok_cluster.topology.blocks * kwok_cluster.topology.racks
    assert all(rack.startswith(f"{block}-") for block, rack in racks)  # a rack is in one block
    (terminal(pytestconfig) or print)(
        f"{len(nodes)} KWOK nodes registered and Ready in {kwok_cluster.ready_seconds:.1f} s"
    )
