"""scheduler-plugins coscheduling PodGroups: one per gang, sized from the workload's own
spec, written by ``wlmap podgroups`` and by the operator, which links pods by a label."""

from __future__ import annotations

import asyncio
import json
from typing import Any, cast

import pytest

from tests.corpus import corpus_object, corpus_path
from tests.unit.cli.runner import run
from tests.unit.operator.test_cache import fed_cache
from tests.unit.operator.test_written import DISCOVERY, Recorder
from tests.unit.sources.jobset_family import jobset_family
from wlmap.catalog import builtin_registry
from wlmap.operator.core.settings import Settings
from wlmap.operator.core.written import Written
from wlmap.operator.deploy import admission, rbac
from wlmap.operator.gangs.cache import has_unlinked_pods
from wlmap.operator.gangs.groups import desired_state
from wlmap.operator.gangs.reconcile import link_pods
from wlmap.schedulers import PROFILES
from wlmap.sources.cluster import Cluster, Discovery
from wlmap.sources.workloads import WorkloadReader
from wlmap.workload import interpret

API_VERSION = "scheduling.x-k8s.io/v1alpha1"
LABEL = "scheduling.x-k8s.io/pod-group"
SETTINGS = Settings(target="coscheduling")


def _podgroups(capsys: pytest.CaptureFixture[str], relative: str) -> list[dict[str, Any]]:
    code, out, _ = run(
        capsys,
        "podgroups",
        "-f",
        str(corpus_path(relative)),
        "--target",
        "coscheduling",
        "-o",
        "json",
    )
    assert code == 0
    items: list[dict[str, Any]] = json.loads(out)["items"]
    return items


def test_a_pytorchjob_is_one_group_of_all_its_pods_and_their_gpus(
    capsys: pytest.CaptureFixture[str],
) -> None:
    relative = "kubeflow-pytorchjob/deepspeed-demo-gpu.yaml"
    replicas = corpus_object(relative, "PyTorchJob")["spec"]["pytorchReplicaSpecs"].values()
    pods = sum(r["replicas"] for r in replicas)
    gpus = sum(
        r["replicas"] * int(c["resources"]["limits"]["nvidia.com/gpu"])
        for r in replicas
        for c in r["template"]["spec"]["containers"]
    )
    [group] = _podgroups(capsys, relative)
    assert (group["apiVersion"], group["kind"]) == (API_VERSION, "PodGroup")
    assert group["spec"] == {"minMember": pods, "minResources": {"nvidia.com/gpu": str(gpus)}}
    assert group["metadata"]["name"].startswith("pytorchjob-pytorch-deepspeed-demo-")


def test_a_jobset_with_subgroups_is_one_group_of_its_whole_minimum(
    capsys: pytest.CaptureFixture[str],
) -> None:
    relative = "jobset/coordinator.yaml"
    jobs = corpus_object(relative, "JobSet")["spec"]["replicatedJobs"]
    pods = sum(j.get("replicas", 1) * j["template"]["spec"].get("parallelism", 1) for j in jobs)
    [group] = _podgroups(capsys, relative)
    assert group["spec"]["minMember"] == pods
    assert "subGroups" not in group["spec"]  # coscheduling has none: KAI's would


def test_the_operator_writes_the_group_and_links_each_pod_by_its_label() -> None:
    family = jobset_family()
    cache = fed_cache()
    for obj in (family.jobset, *family.jobs, *family.pods):
        cache.observe("ADDED", obj)
    registry = builtin_registry()
    snapshot = asyncio.run(cache.read(family.jobset, registry, Discovery(())))
    reader = WorkloadReader(registry, snapshot.manifests, pods_listed=snapshot.pods_listed)
    current = snapshot.manifests[0].obj
    entry = reader.entry(current)
    assert entry is not None
    view = reader.view(entry, current, unknown_without_pods=True)
    desired = desired_state(SETTINGS, view, current)
    [group] = desired.objects
    assert (group["apiVersion"], group["kind"]) == (API_VERSION, "PodGroup")
    name = group["metadata"]["name"]
    assert set(desired.pod_groups.values()) == {name}
    assert all(has_unlinked_pods(cache, SETTINGS, pod) for pod in family.pods)

    server = Recorder()
    cluster = cast(Cluster, server)
    written = Written()
    linked = asyncio.run(
        link_pods(cluster, DISCOVERY, SETTINGS, family.pods, desired.pod_groups, written)
    )
    assert linked == len(family.pods)
    assert server.bodies == [{"metadata": {"labels": {LABEL: name}}}] * len(family.pods)
    shown = [{**p, "metadata": {**p["metadata"], "labels": {LABEL: name}}} for p in family.pods]
    assert not any(has_unlinked_pods(cache, SETTINGS, pod) for pod in shown)


def test_the_operator_may_write_the_groups_and_change_only_that_label_on_pods() -> None:
    rules = rbac.namespaced_rules(builtin_registry(), target="coscheduling")
    verbs = {
        verb
        for rule in rules
        if "scheduling.x-k8s.io" in rule["apiGroups"] and "podgroups" in rule["resources"]
        for verb in rule["verbs"]
    }
    assert {"create", "patch", "delete", "list", "watch"} <= verbs
    assert admission.LINK_LABELS == (LABEL,)
    policy, _ = admission.policy_manifests()
    variables = {v["name"]: v["expression"] for v in policy["spec"]["variables"]}
    assert variables["labelLinks"] == f"['{LABEL}']"


@pytest.mark.parametrize("name", [n for n, p in PROFILES.items() if p.kept])
def test_each_kept_profile_names_the_kinds_its_builder_makes(name: str) -> None:
    profile = PROFILES[name]
    obj = corpus_object("kubeflow-pytorchjob/deepspeed-demo-gpu.yaml", "PyTorchJob")
    view = interpret(builtin_registry().for_object(obj), obj)
    made = {(o["apiVersion"], o["kind"]) for o in profile.build(view, obj)}
    assert made == {(k.api_version, k.kind) for k in profile.kinds}
