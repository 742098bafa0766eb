"""``wlmap plan TYPE/NAME`` on a real API server gives the answer it gives on a dump of the
same nodes and pods: GPU nodes with topology labels, pods bound to them by name, a Job that
owns them, and the workload to plan."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from tests.integration.controllers import owner_reference
from tests.integration.kube import Kube
from tests.integration.wlmapcli import Wlmap
from tests.unit.placement.plan.inputs import BLOCK, RACK, gpu_job
from wlmap.cli._exits import NOT_FOUND, OK

LEVELS = f"{BLOCK},{RACK}"


def gpu_node(kube: Kube, name: str, block: str, rack: str) -> dict[str, Any]:
    labels = {"kubernetes.io/hostname": name, BLOCK: block, RACK: rack}
    node = kube.get("v1", "Node", None, name) or kube.create(
        {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": labels}}
    )
    allocatable = {"cpu": "96", "memory": "1Ti", "nvidia.com/gpu": "8", "pods": "110"}
    return kube.set_status(node, {"capacity": allocatable, "allocatable": allocatable})


def bound_pod(kube: Kube, owner: dict[str, Any], name: str, node: str, gpus: int) -> None:
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "ownerReferences": [owner_reference(owner)]},
        "spec": {
            "nodeName": node,
            "containers": [
                {"name": "main", "image": "busybox:1.36",
                 "resources": {"limits": {"nvidia.com/gpu": str(gpus)}}}
            ],
        },
    }  # fmt: skip
    kube.set_status(kube.create(pod, owner["metadata"]["namespace"]), {"phase": "Running"})


def listed(kube: Kube, api_version: str, kind: str) -> list[dict[str, Any]]:
    return [{"apiVersion": api_version, "kind": kind, **o} for o in kube.list(api_version, kind)]


def with_owners(kube: Kube, objects: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``objects`` and every owner up their chains, as live mode reads them: other tests
    leave pods of Deployments, JobSets and more on the shared server, and a dump without
    their owners names only the first owner reference."""
    found = {o["metadata"]["uid"]: o for o in objects}
    todo = list(objects)
    while todo:
        obj = todo.pop()
        namespace = obj["metadata"].get("namespace")
        for ref in obj["metadata"].get("ownerReferences") or ():
            if ref["uid"] in found:
                continue
            owner = kube.get(ref["apiVersion"], ref["kind"], namespace, ref["name"])
            if owner is not None and owner["metadata"]["uid"] == ref["uid"]:
                owner = {"apiVersion": ref["apiVersion"], "kind": ref["kind"], **owner}
                found[ref["uid"]] = owner
                todo.append(owner)
    return list(found.values())


def test_plan_live_gives_the_answer_of_a_dump_of_the_same_objects(
    wlmap: Wlmap, kube: Kube, namespace: str, tmp_path: Path
) -> None:
    for block in ("b1", "b2"):
        for rack in ("r1", "r2"):
            for node in ("a", "b"):
                gpu_node(kube, f"plan-{block}-{rack}-{node}", block, rack)
    holder = kube.create(gpu_job(3, 4) | {"metadata": {"name": "holder"}}, namespace)
    for index, node in enumerate(("plan-b1-r1-a", "plan-b1-r2-a", "plan-b2-r1-b")):
        bound_pod(kube, holder, f"holder-{index}", node, 4)
    bound_pod(kube, holder, "holder-3", "plan-b2-r2-a", 6)
    planned = kube.create(gpu_job(4, 4), namespace)  # 16 GPUs in one rack: none has 16 free

    live = wlmap("plan", f"jobs/{planned['metadata']['name']}", "-n", namespace,
                 "--levels", LEVELS, "-o", "json")  # fmt: skip
    assert live.code == OK, live.err

    dump = tmp_path / "dump.yaml"
    items = with_owners(kube, [*listed(kube, "v1", "Node"), *listed(kube, "v1", "Pod")])
    dump.write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": items}))
    workload = tmp_path / "job.yaml"
    workload.write_text(yaml.safe_dump({"apiVersion": "batch/v1", "kind": "Job", **planned}))
    offline = wlmap(
        "plan", "-f", str(workload), "--cluster", str(dump), "--levels", LEVELS, "-o", "json"
    )
    assert offline.code == OK, offline.err

    (from_live,), (from_dump,) = json.loads(live.out)["items"], json.loads(offline.out)["items"]
    assert from_live.pop("cluster") == "current context" and from_dump.pop("cluster") == str(dump)
    assert from_live == from_dump
    (gang,) = from_live["plans"]
    assert not gang["fits"]
    assert f"if the pods of Job {namespace}/holder finished" in gang["reason"]

    # the same cluster by context and by dump, ranked side by side: equal but for the name
    context = yaml.safe_load(wlmap.kubeconfig.read_text())["current-context"]
    both = wlmap("plan", "-f", str(workload), "--cluster", str(dump), "--context", context,
                 "--levels", LEVELS, "-o", "json")  # fmt: skip
    assert both.code == OK, both.err
    first, second = json.loads(both.out)["items"]
    assert {first.pop("cluster"), second.pop("cluster")} == {str(dump), f"context {context}"}
    assert first.pop("rank") == 1 and second.pop("rank") == 2
    assert first == second == {k: v for k, v in from_dump.items() if k != "rank"}


def test_plan_of_a_workload_the_cluster_lacks_is_not_found(wlmap: Wlmap, namespace: str) -> None:
    result = wlmap("plan", "jobs/absent", "-n", namespace, "--levels", LEVELS)
    assert result.code == NOT_FOUND
    assert result.errors == [f"error: job 'absent' not found in namespace '{namespace}'"]
