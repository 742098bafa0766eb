"""Inputs of the plan tests: the cluster dump, and real corpus workloads read into views.

The Kueue TAS sample Job asks for CPU only; :func:`gpu_job` gives it GPUs (and a name and
namespace, which ``generateName`` leaves open) so that it is a gang a plan places. Nothing
else of the sample changes: its rack annotation is the one under test.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

from tests.corpus import corpus_path
from wlmap.catalog import builtin_registry
from wlmap.placement.plan import Occupancy, read_occupancy
from wlmap.sources.manifests import Manifest
from wlmap.sources.workloads import Found, WorkloadReader

DATA = Path(__file__).parent / "data"
CLUSTER = DATA / "cluster.yaml"
BLOCK = "cloud.provider.com/topology-block"
RACK = "cloud.provider.com/topology-rack"
LEVELS = (BLOCK, RACK)
KUEUE_JOB = "core-workloads/kueue-tas-sample-job-required.yaml"
LWS = "lws-leaderworkerset/kueue-sample-leaderworkerset-tas-gpu.yaml"
KAI_JOBS = "kai-podgroup/multi-topology-jobs-gpu.yaml"


def corpus_objects(relative: str) -> list[dict[str, Any]]:
    return [dict(d) for d in yaml.safe_load_all(corpus_path(relative).read_text()) if d]


def gpu_job(pods: int, gpus: int) -> dict[str, Any]:
    """The Kueue TAS sample Job with ``pods`` pods of ``gpus`` GPUs each."""
    (job,) = copy.deepcopy(corpus_objects(KUEUE_JOB))
    job["metadata"] = {"name": "tas-sample-required", "namespace": "team-c"}
    job["spec"]["parallelism"] = job["spec"]["completions"] = pods
    job["spec"]["template"]["spec"]["containers"][0]["resources"]["limits"] = {
        "nvidia.com/gpu": str(gpus)
    }
    return job


def found(obj: Mapping[str, Any]) -> Found:
    manifests = [Manifest(dict(obj), "workload.yaml")]
    items, _ = WorkloadReader(builtin_registry(), manifests).read(manifests)
    (item,) = [f for f in items if f.top_level]
    return item


def dump_objects(path: Path = CLUSTER) -> list[dict[str, Any]]:
    return list(yaml.safe_load(path.read_text())["items"])


def by_owner_reference(pod: Mapping[str, Any]) -> str:
    """The pod's namespace and its first owner's name (or its own)."""
    metadata = pod.get("metadata") or {}
    owners = metadata.get("ownerReferences") or [{"name": metadata.get("name")}]
    return f"{metadata.get('namespace')}/{owners[0]['name']}"


def occupancy(objects: list[dict[str, Any]] | None = None) -> Occupancy:
    return read_occupancy(
        dump_objects() if objects is None else objects,
        LEVELS,
        by_owner_reference,
        name="cluster.yaml",
    )
