"""A JobSet from the corpus with the Jobs and pods its controller would create, offline:
uids, owner references and labels as the JobSet and Job controllers set them."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from tests.corpus import corpus_object

NAMESPACE = "team-a"


@dataclass
class Family:
    """The JobSet, its Jobs and its pods."""

    jobset: dict[str, Any]
    jobs: list[dict[str, Any]]
    pods: list[dict[str, Any]]


def _reference(owner: Mapping[str, Any]) -> dict[str, Any]:
    meta = owner["metadata"]
    return {
        "apiVersion": owner["apiVersion"],
        "kind": owner["kind"],
        "name": meta["name"],
        "uid": meta["uid"],
        "controller": True,
    }


def jobset_family(name: str = "coordinator-example") -> Family:
    """``jobset/coordinator.yaml`` (4 workers and a driver) under ``name``, with children."""
    jobset = copy.deepcopy(corpus_object("jobset/coordinator.yaml", "JobSet"))
    jobset["metadata"].update(
        name=name, namespace=NAMESPACE, uid=f"{name}-uid", resourceVersion="1"
    )
    jobs, pods = [], []
    for replicated in jobset["spec"]["replicatedJobs"]:
        labels = {
            "jobset.sigs.k8s.io/jobset-name": name,
            "jobset.sigs.k8s.io/replicatedjob-name": replicated["name"],
            "jobset.sigs.k8s.io/job-index": "0",
        }
        job_name = f"{name}-{replicated['name']}-0"
        job = {
            "apiVersion": "batch/v1",
            "kind": "Job",
            "metadata": {
                "name": job_name,
                "namespace": NAMESPACE,
                "uid": f"{job_name}-uid",
                "resourceVersion": "1",
                "labels": labels,
                "ownerReferences": [_reference(jobset)],
            },
            "spec": copy.deepcopy(replicated["template"]["spec"]),
        }
        jobs.append(job)
        for index in range(int(job["spec"].get("parallelism", 1))):
            pod_name = f"{job_name}-{index}"
            pods.append(
                {
                    "apiVersion": "v1",
                    "kind": "Pod",
                    "metadata": {
                        "name": pod_name,
                        "namespace": NAMESPACE,
                        "uid": f"{pod_name}-uid",
                        "resourceVersion": "1",
                        "labels": {
                            **labels,
                            "batch.kubernetes.io/job-completion-index": str(index),
                        },
                        "ownerReferences": [_reference(job)],
                    },
                    "spec": copy.deepcopy(job["spec"]["template"]["spec"]),
                    "status": {
                        "phase": "Running",
                        "conditions": [{"type": "Ready", "status": "True"}],
                    },
                }
            )
    return Family(jobset, jobs, pods)
