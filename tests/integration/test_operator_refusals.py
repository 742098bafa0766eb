"""What the operator refuses to write, and says so: gangs from a definition that fails at
run time, names another object holds, objects the server refuses. And the names it
writes: one per workload, whatever its kind, however long its name."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.integration.kube import Kube, load, wait_for
from tests.integration.load import KAI, min_member
from tests.integration.operator_process import OperatorProcess
from tests.integration.testcluster import TestCluster
from wlmap.catalog import builtin_registry
from wlmap.schedulers import kai_podgroups
from wlmap.workload import interpret

REPO = Path(__file__).resolve().parents[2]
CATALOG = REPO / "src" / "wlmap" / "catalog" / "definitions"
WORKLOADMAP = ("wlmap.dev/v1alpha1", "WorkloadMap")
BROKEN = 'error("parallelism unreadable")'


@pytest.fixture(scope="module")
def definition_crds(kube: Kube) -> None:
    kube.install_crds(
        REPO / "deploy" / "crds" / name
        for name in ("wlmap.dev_workloadmaps.yaml", "run.ai_kartas.yaml")
    )


def jobset(kube: Kube, namespace: str, name: str) -> dict[str, Any]:
    (obj,) = load("jobset/coordinator.yaml")
    obj["metadata"]["name"] = name
    return kube.create(obj, namespace)


def events(kube: Kube, namespace: str, obj: dict[str, Any], reason: str) -> list[dict[str, Any]]:
    """The Events about one object with one reason."""
    return [
        e
        for e in kube.list("v1", "Event", namespace)
        if e["involvedObject"].get("uid") == obj["metadata"]["uid"] and e["reason"] == reason
    ]


def owned_groups(kube: Kube, namespace: str, obj: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        g
        for g in kube.list(*KAI, namespace)
        if any(o["uid"] == obj["metadata"]["uid"] for o in g["metadata"]["ownerReferences"])
    ]


def jobset_definition(name: str, parallelism_path: str | None = None) -> dict[str, Any]:
    """The catalog's JobSet definition as a cluster object, its pods-per-Job path replaced."""
    document: dict[str, Any] = yaml.safe_load(
        (CATALOG / "jobset-x-k8s-io-jobset-v1alpha2.yaml").read_text()
    )
    document["metadata"] = {"name": name}
    if parallelism_path is not None:
        pod = document["spec"]["structureDefinition"]["childComponents"][1]
        pod["scaleDefinition"]["replicasPath"] = parallelism_path
    return {"apiVersion": WORKLOADMAP[0], "kind": WORKLOADMAP[1], **document}


@pytest.fixture
def stored_definition(kube: Kube, definition_crds: None) -> Iterator[list[dict[str, Any]]]:
    """Definition objects made by the test, deleted after it (they serve every namespace)."""
    made: list[dict[str, Any]] = []
    yield made
    for obj in made:
        kube.delete(obj)


def degraded(kube: Kube, name: str) -> dict[str, Any]:
    obj = kube.get(*WORKLOADMAP, None, name) or {}
    found = [c for c in (obj.get("status") or {}).get("conditions", []) if c["type"] == "Degraded"]
    return found[0] if found else {}


def test_a_definition_failing_at_run_time_writes_nothing_and_says_where(
    kube: Kube,
    namespace: str,
    operator: OperatorProcess,
    stored_definition: list[dict[str, Any]],
) -> None:
    created = jobset(kube, namespace, "coordinator-example")
    (group,) = wait_for(lambda: owned_groups(kube, namespace, created), "the PodGroup")
    assert min_member(group) == 5

    name = "jobset-failing-at-run-time"
    stored_definition.append(kube.create(jobset_definition(name, BROKEN)))
    (event,) = wait_for(
        lambda: events(kube, namespace, created, "EvaluationFailed"), "an EvaluationFailed event"
    )
    assert name in event["message"] and "scaleDefinition.replicasPath" in event["message"]
    assert "parallelism unreadable" in event["message"]
    condition = wait_for(
        lambda: degraded(kube, name).get("status") == "True" and degraded(kube, name), "Degraded"
    )
    assert (
        condition["reason"] == "EvaluationFailed"
        and "parallelism unreadable" in condition["message"]
    )
    # the last good group stays as it was: not rewritten with a minimum from failed inputs
    (kept,) = owned_groups(kube, namespace, created)
    assert min_member(kept) == 5
    assert "EvaluationFailed" in operator.output()

    # a change of the workload while its definition fails: still nothing written
    replicated = created["spec"]["replicatedJobs"]
    replicated[0]["replicas"] = 3  # workers: 3 jobs of 4 pods
    kube.patch(created, {"spec": {"replicatedJobs": replicated}})
    fixed = jobset_definition(name)
    kube.patch(stored_definition[0], {"spec": fixed["spec"]})
    wait_for(
        lambda: [g for g in owned_groups(kube, namespace, created) if min_member(g) == 13],
        "minMember 13 once the definition evaluates again",
    )
    wait_for(lambda: degraded(kube, name).get("status") == "False", "Degraded cleared")


def test_workloads_of_two_kinds_with_one_name_get_a_group_each(
    kube: Kube, namespace: str, operator: OperatorProcess
) -> None:
    made = jobset(kube, namespace, "train")
    (pytorch,) = load("kubeflow-pytorchjob/simple.yaml")
    pytorch["metadata"] = {"name": "train"}
    other = kube.create(pytorch, namespace)

    def both() -> bool:
        return all(len(owned_groups(kube, namespace, o)) == 1 for o in (made, other))

    wait_for(both, "one group for the JobSet and one for the PyTorchJob")
    (a,), (b,) = owned_groups(kube, namespace, made), owned_groups(kube, namespace, other)
    assert a["metadata"]["name"] != b["metadata"]["name"]
    assert (min_member(a), min_member(b)) == (5, 2)
    assert len(kube.list(*KAI, namespace)) == 2


def test_a_workload_with_a_name_over_63_characters_gets_its_group(
    kube: Kube, namespace: str, operator: OperatorProcess
) -> None:
    name = "a-jobset-whose-name-is-far-longer-than-any-label-value-may-be-" + "x" * 20
    made = jobset(kube, namespace, name)
    (group,) = wait_for(lambda: owned_groups(kube, namespace, made), "the PodGroup")
    assert len(group["metadata"]["name"]) <= 63 and min_member(group) == 5
    assert "refused" not in operator.output()


def test_a_name_held_by_another_object_is_not_adopted(
    cluster: TestCluster, kube: Kube, namespace: str, tmp_path: Path
) -> None:
    made = jobset(kube, namespace, "coordinator-example")
    definition = builtin_registry().for_object(made)
    (wanted,) = kai_podgroups(interpret(definition, made), made)
    foreign = {
        "apiVersion": KAI[0],
        "kind": KAI[1],
        "metadata": {"name": wanted["metadata"]["name"], "labels": {"team": "someone-else"}},
        "spec": {"minMember": 99},
    }
    kube.create(foreign, namespace)
    # a group named the way earlier versions named them, carrying this workload's uid
    legacy = copy.deepcopy(wanted)
    legacy["metadata"]["name"] = "pg-coordinator-example"
    legacy["metadata"]["labels"]["wlmap.dev/workload-uid"] = made["metadata"]["uid"]
    kube.create(legacy, namespace)
    process = OperatorProcess(cluster.kubeconfig, namespace, tmp_path / "op.log").start()
    try:
        (event,) = wait_for(lambda: events(kube, namespace, made, "NameTaken"), "NameTaken")
        assert wanted["metadata"]["name"] in event["message"]
        wait_for(
            lambda: kube.get(*KAI, namespace, "pg-coordinator-example") is None,
            "the group named the old way removed",
        )
        kept = kube.get(*KAI, namespace, wanted["metadata"]["name"]) or {}
        assert kept["spec"] == {"minMember": 99}
        assert "wlmap.dev/workload-uid" not in kept["metadata"]["labels"]
        assert not kept["metadata"].get("ownerReferences")
    finally:
        process.stop()


def test_a_group_the_server_refuses_is_reported_with_its_message(
    kube: Kube, namespace: str, operator: OperatorProcess
) -> None:
    policy: dict[str, Any] = {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingAdmissionPolicy",
        "metadata": {"name": f"refuse-groups-{namespace}"[:63].rstrip("-")},
        "spec": {
            "matchConstraints": {
                "resourceRules": [
                    {
                        "apiGroups": ["scheduling.run.ai"],
                        "apiVersions": ["*"],
                        "operations": ["CREATE", "UPDATE"],
                        "resources": ["podgroups"],
                    }
                ]
            },
            "validations": [
                {
                    "expression": f"object.metadata.namespace != '{namespace}'",
                    "message": "gang groups are not allowed in this namespace",
                    "reason": "Invalid",
                }
            ],
        },
    }
    binding = {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingAdmissionPolicyBinding",
        "metadata": {"name": policy["metadata"]["name"]},
        "spec": {"policyName": policy["metadata"]["name"], "validationActions": ["Deny"]},
    }
    made_policy, made_binding = kube.create(policy), kube.create(binding)
    try:
        wait_for(lambda: _refused(kube, namespace), "the policy in force", timeout=30)
        made = jobset(kube, namespace, "coordinator-example")
        (event,) = wait_for(lambda: events(kube, namespace, made, "ApplyRefused"), "ApplyRefused")
        assert "gang groups are not allowed in this namespace" in event["message"]
        assert owned_groups(kube, namespace, made) == []
    finally:
        kube.delete(made_binding)
        kube.delete(made_policy)


def _refused(kube: Kube, namespace: str) -> bool:
    """Whether the admission policy already refuses a group in the namespace."""
    probe = {"apiVersion": KAI[0], "kind": KAI[1], "metadata": {"name": "probe"}, "spec": {}}
    try:
        kube.delete(kube.create(probe, namespace))
    except AssertionError as exc:
        return "not allowed" in str(exc)
    return False


def test_a_definition_is_no_longer_degraded_once_its_failing_workload_is_deleted(
    kube: Kube,
    namespace: str,
    operator: OperatorProcess,
    stored_definition: list[dict[str, Any]],
) -> None:
    name = "jobset-failing-then-deleted"
    stored_definition.append(kube.create(jobset_definition(name, BROKEN)))
    created = jobset(kube, namespace, "coordinator-example")
    wait_for(lambda: degraded(kube, name).get("status") == "True", "Degraded")
    kube.delete(created)
    wait_for(lambda: degraded(kube, name).get("status") == "False", "Degraded cleared")
