"""Every gang wlmap writes can be satisfied by pods that exist at the same time.

A replicatedJob that ``dependsOn`` others (in a JobSet, or in a TrainJob's runtime) is
created only once they are Ready or Complete, so its pods and theirs are not all there
when the workload starts. For every target, the gang objects of real corpus workloads
are checked against the start order read here from the manifests themselves: the pods
linked to one object all start together, and its minimum is no more than they are.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pytest

from tests.corpus import corpus_object, corpus_path
from tests.unit.cli.runner import run
from wlmap.catalog import builtin_registry
from wlmap.operator.core.settings import Settings
from wlmap.operator.gangs.groups import Desired, desired_state
from wlmap.schedulers import PROFILES
from wlmap.workload import interpret

KEPT = [name for name, profile in PROFILES.items() if profile.kept]


@dataclass
class Staged:
    """A workload, what it references, and its replicatedJobs as its controller runs them."""

    obj: dict[str, Any]
    references: dict[str, Any]
    jobs: list[dict[str, Any]]  # the JobSet's (or the runtime template's) replicatedJobs
    pods_of: dict[str, int]  # pods each replicatedJob runs

    def start(self, job: str) -> frozenset[tuple[str, str]]:
        """What a replicatedJob waits for before it is created: the jobs with the same
        waits are created together."""
        [spec] = [j for j in self.jobs if j["name"] == job]
        return frozenset((d["name"], d["status"]) for d in spec.get("dependsOn") or ())

    def pods(self) -> list[dict[str, Any]]:
        """The pods, labelled as the JobSet controller labels them."""
        name = self.obj["metadata"]["name"]
        return [
            {
                "apiVersion": "v1",
                "kind": "Pod",
                "metadata": {
                    "name": f"{name}-{job}-0-{index}",
                    "namespace": "team-a",
                    "labels": {
                        "jobset.sigs.k8s.io/jobset-name": name,
                        "jobset.sigs.k8s.io/replicatedjob-name": job,
                        "jobset.sigs.k8s.io/job-index": "0",
                    },
                },
                "spec": {"containers": [{"name": "c", "image": "busybox"}]},
            }
            for job, count in self.pods_of.items()
            for index in range(count)
        ]


def _jobset(relative: str) -> Staged:
    obj = corpus_object(relative, "JobSet")
    obj["metadata"]["namespace"] = "team-a"
    jobs = obj["spec"]["replicatedJobs"]
    pods = {}
    for job in jobs:
        spec = job["template"]["spec"]
        parallelism = spec.get("parallelism", 1)
        pods[job["name"]] = job.get("replicas", 1) * min(
            parallelism, spec.get("completions", parallelism)
        )
    return Staged(obj, {}, jobs, pods)


def _trainjob(runtime: str) -> Staged:
    """``01-multi-node`` (numNodes 3) on another ClusterTrainingRuntime of the corpus."""
    obj = corpus_object("kubeflow-trainjob/01-multi-node.yaml", "TrainJob")
    obj["metadata"]["namespace"] = "team-a"
    template = corpus_object(f"kubeflow-trainingruntime/{runtime}.yaml", "ClusterTrainingRuntime")
    obj["spec"]["runtimeRef"]["name"] = template["metadata"]["name"]
    jobs = template["spec"]["template"]["spec"]["replicatedJobs"]
    nodes = obj["spec"]["trainer"]["numNodes"]
    mpi = template["spec"]["mlPolicy"].get("mpi")
    pods = {}
    for job in jobs:
        step = job["template"].get("metadata", {}).get("labels", {})
        trainer = step.get("trainer.kubeflow.org/trainjob-ancestor-step") == "trainer"
        if mpi is not None and job["name"] == "node":
            # MPI (kubeflow/trainer plugins/mpi): the nodes, one of them the launcher
            # when it runs as a node
            pods["node"] = max(nodes - 1, 1) if mpi.get("runLauncherAsNode") else nodes
        elif trainer and mpi is None:  # the trainer step runs numNodes pods
            pods[job["name"]] = nodes
        else:
            pods[job["name"]] = job["template"]["spec"].get("parallelism", 1)
    return Staged(obj, {"clusterRuntime": template}, jobs, pods)


WORKLOADS = {
    "jobset/multiple-depends-on": lambda: _jobset("jobset/multiple-depends-on.yaml"),
    "jobset/volume-claim-policy-single-pvc": lambda: _jobset(
        "jobset/volume-claim-policy-single-pvc.yaml"
    ),
    "trainjob/torch-distributed-with-cache": lambda: _trainjob("torch-distributed-with-cache"),
    "trainjob/deepspeed-distributed": lambda: _trainjob("deepspeed-distributed"),
    "jobset/group (no waits)": lambda: _jobset("jobset/group.yaml"),
}


def _minimum(group: Mapping[str, Any]) -> int:
    spec = group["spec"]
    if "minMember" in spec:
        return int(spec["minMember"])
    if "subGroups" in spec:  # KAI: every subgroup must reach its own minimum
        return sum(int(s["minMember"]) for s in spec["subGroups"])
    return int(spec["schedulingPolicy"]["gang"]["minCount"])


@pytest.mark.parametrize("target", KEPT)
@pytest.mark.parametrize("workload", list(WORKLOADS))
def test_each_gang_is_satisfied_by_pods_that_start_together(workload: str, target: str) -> None:
    staged = WORKLOADS[workload]()
    definition = builtin_registry().for_object(staged.obj)
    pods = staged.pods()
    view = interpret(definition, staged.obj, pods=pods, references=staged.references)
    desired = desired_state(Settings(target=target), view, staged.obj)
    _check(
        desired,
        {
            p["metadata"]["name"]: staged.start(
                p["metadata"]["labels"]["jobset.sigs.k8s.io/replicatedjob-name"]
            )
            for p in pods
        },
    )


def _check(desired: Desired, start_of: Mapping[str, frozenset[Any]]) -> None:
    """One gang object per start stage; each links pods of one stage, and no more than
    it links are needed to start it. ``start_of``: each pod's start (what it waits for)."""
    groups = [o for o in desired.objects if o["kind"] == "PodGroup"]
    assert set(desired.pod_groups) == set(start_of), "every pod joins a gang"
    assert len(groups) == len(set(start_of.values())), "one gang object per start stage"
    for group in groups:
        name = group["metadata"]["name"]
        linked = [p for p, g in desired.pod_groups.items() if g == name]
        assert len({start_of[p] for p in linked}) == 1, (
            f"{name} holds pods of stages that are not created together"
        )
        assert 0 < _minimum(group) <= len(linked), f"{name} asks for more pods than start"


@pytest.mark.parametrize("target", KEPT)
def test_a_pipeline_task_after_another_is_a_gang_of_its_own(target: str) -> None:
    relative = "tekton/pipelinerun-limitrange-empty-status.yaml"
    run_ = corpus_object(relative, "PipelineRun")
    run_["metadata"].update(name="hello-run", namespace="team-a")
    pipeline = corpus_object(relative, "Pipeline")
    tasks = pipeline["spec"]["tasks"]
    pods = [
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {
                "name": f"hello-run-{task['name']}-pod",
                "namespace": "team-a",
                "labels": {
                    "tekton.dev/pipelineRun": "hello-run",
                    "tekton.dev/pipelineTask": task["name"],
                },
            },
            "spec": {"containers": [{"name": "step-echo", "image": "ubuntu"}]},
        }
        for task in tasks
    ]
    definition = builtin_registry().for_object(run_)
    view = interpret(definition, run_, pods=pods, references={"pipeline": pipeline})
    desired = desired_state(Settings(target=target), view, run_)
    # each task runs one pod, once the tasks in its runAfter are done
    _check(
        desired,
        {f"hello-run-{task['name']}-pod": frozenset(task.get("runAfter") or ()) for task in tasks},
    )


@pytest.mark.parametrize("workload", list(WORKLOADS))
def test_no_kueue_podset_spans_two_stages(workload: str) -> None:
    staged = WORKLOADS[workload]()
    definition = builtin_registry().for_object(staged.obj)
    view = interpret(definition, staged.obj, references=staged.references)
    podsets = PROFILES["kueue"].build(view, staged.obj)
    # one PodSet per replicatedJob: none counts pods of two stages
    assert sorted(p["count"] for p in podsets) == sorted(staged.pods_of.values())
    assert all(p.get("minCount", p["count"]) <= p["count"] for p in podsets)


@pytest.mark.parametrize("target", KEPT)
def test_podgroups_writes_the_gangs_the_operator_writes(
    capsys: pytest.CaptureFixture[str], tmp_path: Any, target: str
) -> None:
    # the command sees no pods: its objects must be the ones the operator keeps
    staged = WORKLOADS["jobset/multiple-depends-on"]()
    source = tmp_path / "jobset.yaml"
    source.write_text(json.dumps(staged.obj), encoding="utf-8")
    code, out, _ = run(capsys, "podgroups", "-f", str(source), "--target", target, "-o", "json")
    assert code == 0
    printed = json.loads(out)["items"]
    definition = builtin_registry().for_object(staged.obj)
    view = interpret(definition, copy.deepcopy(staged.obj), pods=staged.pods())
    desired = desired_state(Settings(target=target), view, staged.obj)
    assert [(o["metadata"]["name"], o["spec"]) for o in printed] == [
        (o["metadata"]["name"], o["spec"]) for o in desired.objects
    ]


def test_explain_says_why_a_gang_is_split(capsys: pytest.CaptureFixture[str]) -> None:
    source = str(corpus_path("jobset/multiple-depends-on.yaml"))
    code, out, _ = run(capsys, "explain", "-f", source)
    assert code == 0
    assert out.splitlines()[-3:] == [
        "  gangs, one per start stage:",
        "    jobset (dataset-initializer): at least 2 pods; starts first",
        "    jobset (worker): at least 4 pods; replicatedJob worker starts after "
        "dataset-initializer, model-initializer complete: separate gang",
    ]
    code, out, _ = run(capsys, "explain", "-f", source, "-o", "json")
    stages = json.loads(out)["gangStages"]
    assert [(g["key"], g["minMember"], g["startsAfter"]) for g in stages] == [
        (["dataset-initializer"], 2, None),
        (
            ["worker"],
            4,
            "replicatedJob worker starts after dataset-initializer, model-initializer complete",
        ),
    ]


@pytest.mark.parametrize("target", KEPT)
def test_a_rayjob_cluster_and_its_submitter_are_two_objects(
    capsys: pytest.CaptureFixture[str], target: str
) -> None:
    # the submitter starts once the cluster is up: printed without pods, the two gangs
    # must not share one object name (the second would replace the first when applied)
    relative = "ray-rayjob/deletion-rules.yaml"
    spec = corpus_object(relative, "RayJob")["spec"]["rayClusterSpec"]
    cluster = 1 + sum(g.get("minReplicas", g.get("replicas", 1)) for g in spec["workerGroupSpecs"])
    code, out, _ = run(
        capsys, "podgroups", "-f", str(corpus_path(relative)), "--target", target, "-o", "json"
    )
    assert code == 0
    groups = [o for o in json.loads(out)["items"] if o["kind"] == "PodGroup"]
    assert len({g["metadata"]["name"] for g in groups}) == len(groups) == 2
    assert sorted(_minimum(g) for g in groups) == sorted([cluster, 1])


@pytest.mark.parametrize("target", KEPT)
def test_argo_dag_tasks_that_wait_are_gangs_of_their_own(target: str) -> None:
    relative = "argo-workflows/controller-testdata-dag-disable-fail-fast-status.yaml"
    workflow = corpus_object(relative, "Workflow")
    name = workflow["metadata"]["name"]
    templates = {t["name"]: t for t in workflow["spec"]["templates"]}
    tasks = [t for tpl in templates.values() for t in (tpl.get("dag") or {}).get("tasks", [])]
    template_of = {t["name"]: t["template"] for t in tasks}
    # a template's pod starts once the templates of the tasks its callers depend on are
    # done (every caller's, excluding itself: d is called after d)
    start = {
        tpl: frozenset(
            template_of[d]
            for t in tasks
            if t["template"] == tpl
            for d in t.get("dependencies", ())
            if template_of[d] != tpl
        )
        for tpl in {t["template"] for t in tasks}
    }
    pods = [
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {
                "name": f"{name}-{tpl}",
                "namespace": workflow["metadata"]["namespace"],
                "labels": {"workflows.argoproj.io/workflow": name},
            },
            "spec": {
                "containers": [
                    {
                        "name": "main",
                        "image": "alpine",
                        "env": [{"name": "ARGO_TEMPLATE", "value": json.dumps(templates[tpl])}],
                    }
                ]
            },
        }
        for tpl in start
    ]
    definition = builtin_registry().for_object(workflow)
    view = interpret(definition, workflow, pods=pods)
    desired = desired_state(Settings(target=target), view, workflow)
    _check(desired, {f"{name}-{tpl}": waits for tpl, waits in start.items()})
