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
