"""Gangs of mapped workloads with the topology intent their manifests carry: Kueue pod-template
annotations, KAI workload annotations, the definition's podGroup topology; and clear errors
for levels the topology lacks and for incomplete slice annotations."""

from __future__ import annotations

import copy
import dataclasses
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.corpus import corpus_path
from wlmap.catalog import builtin_registry
from wlmap.definitions.gang import Topology as PodGroupTopology
from wlmap.errors import PlacementInputError
from wlmap.placement.feed import INTENT_GROUP, WorkloadGang, gang_requests, to_gang
from wlmap.placement.gangs import kueue_tas, node_list, tiresias
from wlmap.sources.manifests import Manifest
from wlmap.sources.workloads import WorkloadReader
from wlmap.workload import GangGroup, WorkloadView

RACK = "cloud.provider.com/topology-rack"
BLOCK = "cloud.provider.com/topology-block"
RACK_NODES = Path(__file__).parent / "data" / "rack_nodes.yaml"
LWS = "lws-leaderworkerset/kueue-sample-leaderworkerset-tas-gpu.yaml"
KUEUE_JOB = "core-workloads/kueue-tas-sample-job-required.yaml"
PYTORCH = "kubeflow-pytorchjob/deepspeed-demo-gpu.yaml"
STATEFULSET = "core-workloads/kueue-sample-statefulset.yaml"


def corpus_object(relative: str) -> dict[str, Any]:
    (document,) = [d for d in yaml.safe_load_all(corpus_path(relative).read_text()) if d]
    return dict(document)


def view_of(obj: dict[str, Any]) -> WorkloadView:
    manifests = [Manifest(obj, "inline.yaml")]
    found, _ = WorkloadReader(builtin_registry(), manifests).read(manifests)
    (view,) = [f.view for f in found if f.top_level]
    return view


def requests(obj: dict[str, Any], warnings: list[str] | None = None) -> list[WorkloadGang]:
    annotations = obj.get("metadata", {}).get("annotations")
    return gang_requests(
        view_of(obj), annotations=annotations, file="inline.yaml", warnings=warnings
    )


def test_leaderworkerset_groups_are_gangs_of_gpu_workers_required_in_one_rack() -> None:
    warnings: list[str] = []
    first, second = requests(corpus_object(LWS), warnings)
    # 2 replicas of size 3 (1 leader + 2 workers); the CPU-only leader is left out
    assert (first.pods, first.gpus_per_pod, first.components) == (2, 1, ("worker",))
    assert first.name.endswith("gang group#0") and second.name.endswith("gang group#1")
    assert first.required is not None and first.required.level == RACK
    assert "kueue.x-k8s.io/podset-required-topology of component worker" in first.required.source
    assert warnings == [
        "LeaderWorkerSet default/nginx-leaderworkerset component leader: no GPUs, left out of "
        "gang placement"
    ]
    gang = to_gang(first, node_list(RACK_NODES, [BLOCK, RACK]).topology)
    assert (gang.required_level, gang.preferred_level, gang.slice_size) == (1, None, 0)


def test_a_level_the_topology_lacks_is_an_error_naming_the_annotation_and_levels() -> None:
    first, _ = requests(corpus_object(LWS))
    with pytest.raises(PlacementInputError) as caught:
        to_gang(first, tiresias().topology, file="lws.yaml")
    message = str(caught.value)
    assert message.startswith(
        "lws.yaml: LeaderWorkerSet default/nginx-leaderworkerset gang group#0"
    )
    assert "annotation kueue.x-k8s.io/podset-required-topology of component worker" in message
    assert (
        f"level '{RACK}' is not in the topology (levels: switch, kubernetes.io/hostname)" in message
    )


def test_the_kueue_sample_job_asks_for_no_gpu_and_with_gpus_is_one_gang_of_ten() -> None:
    job = corpus_object(KUEUE_JOB)
    warnings: list[str] = []
    assert requests(job, warnings) == []
    assert warnings == [
        "Job default/(generated name) component job: no GPUs, left out of gang placement"
    ]
    with_gpus = copy.deepcopy(job)
    container = with_gpus["spec"]["template"]["spec"]["containers"][0]
    container["resources"]["requests"]["nvidia.com/gpu"] = "2"
    (gang,) = requests(with_gpus)
    placed = to_gang(gang, kueue_tas().topology)
    assert (placed.pods, placed.gpus_per_pod, placed.required_level) == (10, 2, 1)


def test_kueue_slice_annotations_become_slices_and_must_divide_the_gang() -> None:
    job = corpus_object(KUEUE_JOB)
    job["spec"]["template"]["spec"]["containers"][0]["resources"]["requests"]["nvidia.com/gpu"] = (
        "1"
    )
    annotations = job["spec"]["template"]["metadata"]["annotations"]
    annotations["kueue.x-k8s.io/podset-slice-required-topology"] = "kubernetes.io/hostname"
    annotations["kueue.x-k8s.io/podset-slice-size"] = "5"
    (gang,) = requests(job)
    placed = to_gang(gang, kueue_tas().topology)
    assert (placed.slice_size, placed.slice_level, placed.required_level) == (5, 2, 1)
    annotations["kueue.x-k8s.io/podset-slice-size"] = "3"
    with pytest.raises(
        PlacementInputError, match="a slice of 3 pods must divide the gang's 10 pods"
    ):
        requests(job)
    del annotations["kueue.x-k8s.io/podset-slice-size"]
    with pytest.raises(
        PlacementInputError,
        match=re.escape(
            "annotation kueue.x-k8s.io/podset-slice-required-topology of component job: "
            "kueue.x-k8s.io/podset-slice-size must be set with it"
        ),
    ):
        requests(job)


def test_kai_workload_annotations_apply_unless_a_pod_template_annotation_says_more() -> None:
    job = corpus_object(PYTORCH)
    job.setdefault("metadata", {})["annotations"] = {
        "kai.scheduler/topology": "cluster-topology",
        "kai.scheduler/topology-required-placement": BLOCK,
        "kai.scheduler/topology-preferred-placement": RACK,
    }
    (gang,) = requests(job)
    assert (gang.pods, gang.gpus_per_pod, gang.components) == (2, 1, ("master", "worker"))
    assert gang.required is not None and gang.preferred is not None
    assert (gang.required.level, gang.preferred.level) == (BLOCK, RACK)
    assert (
        gang.required.source
        == "annotation kai.scheduler/topology-required-placement of the workload"
    )
    assert gang.topology_name == "cluster-topology"
    worker = job["spec"]["pytorchReplicaSpecs"]["Worker"]["template"]
    worker.setdefault("metadata", {})["annotations"] = {
        "kueue.x-k8s.io/podset-required-topology": RACK
    }
    (gang,) = requests(job)
    assert gang.required is not None and gang.required.level == RACK
    assert gang.required.source.endswith("of component worker")


def test_the_definitions_podgroup_topology_is_read_for_the_group_and_its_subgroups() -> None:
    view = view_of(corpus_object(PYTORCH))
    (group,) = [g for g in view.gang_groups if g.source == "podGroup"]
    block = PodGroupTopology(topology_name="t", required_topology_level=BLOCK)
    rack = PodGroupTopology(topology_name="t", preferred_topology_level=RACK)
    subgroups = tuple(
        GangGroup(name, 1, (name,), None, None, rack if name == "worker" else None, (), "podGroup")
        for name in ("master", "worker")
    )
    grouped = dataclasses.replace(group, topology=block, sub_groups=subgroups)
    changed = dataclasses.replace(view, gangs_reader=lambda: (grouped,))
    master, worker = gang_requests(changed)
    assert (master.components, worker.components) == (("master",), ("worker",))
    assert (
        master.required is not None and master.required.source == "podGroup topology of the group"
    )
    assert master.preferred is None
    assert worker.preferred is not None and worker.preferred.level == RACK
    assert worker.preferred.source == "podGroup topology of subgroup worker"
    assert worker.topology_name == "t"


def _statefulset_with_gpus(gpus: str) -> dict[str, Any]:
    """Kueue's sample StatefulSet, its pods asking for ``gpus`` GPUs each."""
    statefulset = corpus_object(STATEFULSET)
    container = statefulset["spec"]["template"]["spec"]["containers"][0]
    container["resources"]["requests"]["nvidia.com/gpu"] = gpus
    return statefulset


def test_a_statefulset_without_topology_intent_has_no_gang() -> None:
    statefulset = _statefulset_with_gpus("8")
    assert not view_of(statefulset).gang_groups  # its definition declares none
    warnings: list[str] = []
    assert requests(statefulset, warnings) == []
    assert requests(corpus_object(STATEFULSET), warnings) == []  # nor without GPUs
    assert warnings == []


def test_a_statefulset_whose_pods_require_a_rack_is_one_gang_of_all_its_replicas() -> None:
    statefulset = _statefulset_with_gpus("8")
    template = statefulset["spec"]["template"]
    template["metadata"]["annotations"] = {"kueue.x-k8s.io/podset-required-topology": RACK}
    replicas = statefulset["spec"]["replicas"]
    (gang,) = requests(statefulset)
    assert gang.name == f"StatefulSet default/nginx-statefulset gang {INTENT_GROUP}"
    assert (gang.pods, gang.gpus_per_pod, gang.components) == (replicas, 8, ("statefulset",))
    assert gang.required is not None and gang.required.level == RACK
    assert gang.required.source == (
        "annotation kueue.x-k8s.io/podset-required-topology of component statefulset"
    )
    placed = to_gang(gang, kueue_tas().topology)
    assert (placed.pods, placed.required_level, placed.preferred_level) == (replicas, 1, None)
    # every replica is in the gang, not a minimum: scaled up, the gang grows with it
    statefulset["spec"]["replicas"] = replicas + 2
    (grown,) = requests(statefulset)
    assert grown.pods == replicas + 2


def test_a_statefulset_is_grouped_by_kai_workload_annotations_or_a_slice_too() -> None:
    statefulset = _statefulset_with_gpus("1")
    statefulset["metadata"]["annotations"] = {"kai.scheduler/topology-preferred-placement": RACK}
    (gang,) = requests(statefulset)
    assert gang.required is None and gang.preferred is not None
    assert gang.preferred.source == (
        "annotation kai.scheduler/topology-preferred-placement of the workload"
    )
    del statefulset["metadata"]["annotations"]
    statefulset["spec"]["replicas"] = 4
    statefulset["spec"]["template"]["metadata"]["annotations"] = {
        "kueue.x-k8s.io/podset-slice-required-topology": "kubernetes.io/hostname",
        "kueue.x-k8s.io/podset-slice-size": "2",
    }
    (sliced,) = requests(statefulset)
    assert (sliced.pods, sliced.slice_size, sliced.required) == (4, 2, None)


def test_a_statefulset_of_cpu_pods_with_an_intent_has_no_gang_and_mig_pods_are_refused() -> None:
    statefulset = corpus_object(STATEFULSET)
    annotations = {"kueue.x-k8s.io/podset-required-topology": RACK}
    statefulset["spec"]["template"]["metadata"]["annotations"] = annotations
    assert requests(statefulset) == []  # no GPU pods to place
    requested = statefulset["spec"]["template"]["spec"]["containers"][0]["resources"]["requests"]
    requested["nvidia.com/mig-1g.10gb"] = "1"
    with pytest.raises(
        PlacementInputError,
        match="StatefulSet default/nginx-statefulset component statefulset: "
        "a gang pod takes whole GPUs",
    ):
        requests(statefulset)
