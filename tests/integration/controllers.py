"""What the frameworks' controllers would do, done by hand: child objects and pods created
with the owner references and labels each operator puts on them, and pod status written
through the status subresource (no kubelet runs in the test cluster)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tests.integration.kube import Kube


def owner_reference(obj: Mapping[str, Any]) -> dict[str, Any]:
    meta = obj["metadata"]
    return {
        "apiVersion": obj["apiVersion"],
        "kind": obj["kind"],
        "name": meta["name"],
        "uid": meta["uid"],
        "controller": True,
        "blockOwnerDeletion": True,
    }


def run_pod(
    kube: Kube,
    owner: Mapping[str, Any],
    name: str,
    template: Mapping[str, Any],
    labels: Mapping[str, str],
    *,
    ready: bool = True,
) -> dict[str, Any]:
    """A pod from a template, owned by ``owner``, Running (and Ready when asked)."""
    pod_template = dict(template)
    meta = pod_template.get("metadata") or {}
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": name,
            "labels": {**(meta.get("labels") or {}), **labels},
            "annotations": dict(meta.get("annotations") or {}),
            "ownerReferences": [owner_reference(owner)],
        },
        "spec": pod_template["spec"],
    }
    created = kube.create(pod, owner["metadata"]["namespace"])
    return kube.set_status(
        created,
        {
            "phase": "Running",
            "conditions": [{"type": "Ready", "status": "True" if ready else "False"}],
        },
    )


def jobset_children(
    kube: Kube, jobset: Mapping[str, Any], *, ready: bool = True
) -> list[dict[str, Any]]:
    """The Jobs of a JobSet (one per replica of each replicated job) and their pods,
    labelled as the JobSet controller labels them."""
    name = jobset["metadata"]["name"]
    namespace = jobset["metadata"]["namespace"]
    pods = []
    for replicated in jobset["spec"]["replicatedJobs"]:
        job_spec = dict(replicated["template"]["spec"])
        template = dict(job_spec["template"])
        # the JobSet webhook defaults the pod restart policy; the Job API requires one
        template["spec"] = {"restartPolicy": "OnFailure", **template["spec"]}
        job_spec["template"] = template
        for index in range(int(replicated.get("replicas", 1))):
            labels = {
                "jobset.sigs.k8s.io/jobset-name": name,
                "jobset.sigs.k8s.io/replicatedjob-name": replicated["name"],
                "jobset.sigs.k8s.io/job-index": str(index),
            }
            job = kube.create(
                {
                    "apiVersion": "batch/v1",
                    "kind": "Job",
                    "metadata": {
                        "name": f"{name}-{replicated['name']}-{index}",
                        "labels": labels,
                        "ownerReferences": [owner_reference(jobset)],
                    },
                    "spec": {**job_spec, "suspend": True},
                },
                namespace,
            )
            for pod_index in range(int(job_spec.get("parallelism", 1))):
                pods.append(
                    run_pod(
                        kube,
                        job,
                        f"{job['metadata']['name']}-{pod_index}",
                        job_spec["template"],
                        {**labels, "batch.kubernetes.io/job-completion-index": str(pod_index)},
                        ready=ready,
                    )
                )
    return pods


def _statefulset(
    kube: Kube, owner: Mapping[str, Any], name: str, labels: Mapping[str, str], replicas: int
) -> dict[str, Any]:
    selector = {"leaderworkerset.sigs.k8s.io/name": labels["leaderworkerset.sigs.k8s.io/name"]}
    return kube.create(
        {
            "apiVersion": "apps/v1",
            "kind": "StatefulSet",
            "metadata": {
                "name": name,
                "labels": dict(labels),
                "ownerReferences": [owner_reference(owner)],
            },
            "spec": {
                "replicas": replicas,
                "serviceName": name,
                "selector": {"matchLabels": selector},
                "template": {
                    "metadata": {"labels": selector},
                    "spec": {"containers": [{"name": "main", "image": "busybox"}]},
                },
            },
        },
        owner["metadata"]["namespace"],
    )


def lws_children(kube: Kube, lws: Mapping[str, Any]) -> dict[int, list[dict[str, Any]]]:
    """A LeaderWorkerSet's objects as its controller makes them: a leader StatefulSet owned
    by the LeaderWorkerSet, one leader pod per group owned by it, and per group a worker
    StatefulSet owned by the leader pod with the group's other pods. The objects of each
    group (worker pods first, then the worker StatefulSet, then the leader pod)."""
    name = lws["metadata"]["name"]
    spec = lws["spec"]
    template = spec["leaderWorkerTemplate"]
    size = int(template.get("size", 1))
    base = {"leaderworkerset.sigs.k8s.io/name": name}
    leaders = _statefulset(kube, lws, name, base, int(spec.get("replicas", 1)))
    groups: dict[int, list[dict[str, Any]]] = {}
    for group in range(int(spec.get("replicas", 1))):
        labels = {**base, "leaderworkerset.sigs.k8s.io/group-index": str(group)}
        leader = run_pod(
            kube,
            leaders,
            f"{name}-{group}",
            template.get("leaderTemplate") or template["workerTemplate"],
            {**labels, "leaderworkerset.sigs.k8s.io/worker-index": "0"},
        )
        workers = _statefulset(kube, leader, f"{name}-{group}", labels, size - 1)
        pods = [
            run_pod(
                kube,
                workers,
                f"{name}-{group}-{index}",
                template["workerTemplate"],
                {**labels, "leaderworkerset.sigs.k8s.io/worker-index": str(index)},
            )
            for index in range(1, size)
        ]
        groups[group] = [*pods, workers, leader]
    return groups
