"""The operator under faults and bad input: killed and restarted, the API server
restarted, definitions broken or hostile, objects its definition cannot read."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.integration.kube import Kube, load, wait_for
from tests.integration.load import KAI, converged, expected_minimum, min_member
from tests.integration.operator_process import OperatorProcess
from tests.integration.testcluster import TestCluster

REPO = Path(__file__).resolve().parents[2]
CATALOG = REPO / "src" / "wlmap" / "catalog" / "definitions"
WORKLOADMAP = ("wlmap.dev/v1alpha1", "WorkloadMap")


@pytest.fixture(scope="module")
def definition_crds(kube: Kube) -> None:
    kube.install_crds(
        REPO / "deploy" / "crds" / name
        for name in ("wlmap.dev_workloadmaps.yaml", "run.ai_kartas.yaml")
    )


def jobsets(kube: Kube, namespace: str, count: int) -> dict[str, int]:
    (template,) = load("jobset/coordinator.yaml")
    expected = {}
    for index in range(count):
        obj = copy.deepcopy(template)
        obj["metadata"]["name"] = f"js-{index}"
        created = kube.create(obj, namespace)
        expected[obj["metadata"]["name"]] = expected_minimum(created)
    return expected


def lws_definition(name: str, conditions_path: str | None = None) -> dict[str, Any]:
    """The catalog's LeaderWorkerSet definition as a cluster object, optionally changed."""
    document: dict[str, Any] = yaml.safe_load(
        (CATALOG / "leaderworkerset-x-k8s-io-leaderworkerset-v1.yaml").read_text()
    )
    document["metadata"] = {"name": name}
    if conditions_path is not None:
        status = document["spec"]["structureDefinition"]["rootComponent"]["statusDefinition"]
        status["conditionsDefinition"]["path"] = conditions_path
    return document


def test_an_operator_killed_mid_stream_converges_after_restart(
    cluster: TestCluster, kube: Kube, namespace: str, tmp_path: Path
) -> None:
    process = OperatorProcess(cluster.kubeconfig, namespace, tmp_path / "op.log").start()
    try:
        expected = jobsets(kube, namespace, 40)
        process.kill()  # mid-stream: some groups written, others not
        process.start()
        wait_for(converged(kube, namespace, expected), "one group per JobSet", 120)
    finally:
        process.stop()


def test_an_api_server_restart_is_survived(
    cluster: TestCluster, kube: Kube, namespace: str, operator: OperatorProcess
) -> None:
    expected = jobsets(kube, namespace, 3)
    wait_for(converged(kube, namespace, expected), "groups before the restart")
    cluster.stop_apiserver()
    cluster.start_apiserver()
    (template,) = load("jobset/coordinator.yaml")
    template["metadata"]["name"] = "after-restart"
    created = kube.create(template, namespace)
    expected["after-restart"] = expected_minimum(created)
    wait_for(
        converged(kube, namespace, expected), "a group for the JobSet made after the restart", 120
    )
    assert operator.healthy()


def test_definition_objects_report_validation_and_crd_conditions(
    kube: Kube, namespace: str, definition_crds: None, operator: OperatorProcess
) -> None:
    good = kube.create(
        {"apiVersion": WORKLOADMAP[0], "kind": WORKLOADMAP[1], **lws_definition("lws-good")}
    )
    hostile = lws_definition("lws-hostile", "env.HOME")
    hostile_obj = kube.create({"apiVersion": WORKLOADMAP[0], "kind": WORKLOADMAP[1], **hostile})
    try:

        def conditions(name: str) -> dict[str, dict[str, Any]]:
            obj = kube.get(*WORKLOADMAP, None, name) or {}
            return {c["type"]: c for c in (obj.get("status") or {}).get("conditions", [])}

        valid = wait_for(
            lambda: conditions("lws-good").get("Validated"), "status of the good definition"
        )
        assert valid["status"] == "True"
        assert conditions("lws-good")["CRDExists"]["status"] == "True"
        refused = wait_for(
            lambda: conditions("lws-hostile").get("Validated"), "status of the hostile definition"
        )
        assert refused["status"] == "False"
        assert "env" in refused["message"]
        assert operator.healthy()
    finally:
        kube.delete(good)
        kube.delete(hostile_obj)


def test_a_broken_update_keeps_the_last_good_definition_in_use(
    kube: Kube, namespace: str, definition_crds: None, operator: OperatorProcess
) -> None:
    created = kube.create(
        {"apiVersion": WORKLOADMAP[0], "kind": WORKLOADMAP[1], **lws_definition("lws-versions")}
    )
    try:
        wait_for(
            lambda: (
                ((kube.get(*WORKLOADMAP, None, "lws-versions") or {}).get("status") or {}).get(
                    "generationInUse"
                )
                == 1
            ),
            "generation 1 in use",
        )
        broken = lws_definition("lws-versions", ".status.conditions[")  # a jq syntax error
        kube.patch(created, {"spec": broken["spec"]})

        def status() -> dict[str, Any]:
            return (kube.get(*WORKLOADMAP, None, "lws-versions") or {}).get("status") or {}

        wait_for(lambda: status().get("observedGeneration") == 2, "generation 2 observed")
        assert status()["generationInUse"] == 1
        validated = next(c for c in status()["conditions"] if c["type"] == "Validated")
        assert validated["status"] == "False"
        # the last good definition still serves LeaderWorkerSets
        (lws,) = load("lws-leaderworkerset/sample-v1.yaml")
        made = kube.create(lws, namespace)
        wait_for(
            converged(kube, namespace, {made["metadata"]["name"]: expected_minimum(made)}),
            "a group for the LeaderWorkerSet",
        )
    finally:
        kube.delete(created)


def test_an_object_its_definition_cannot_read_does_not_stop_the_operator(
    kube: Kube, namespace: str, operator: OperatorProcess
) -> None:
    (odd,) = load("jobset/coordinator.yaml")
    odd["metadata"]["name"] = "odd"
    odd["spec"]["replicatedJobs"][0]["replicas"] = 0  # a gang of nothing for one role
    kube.create(odd, namespace)
    expected = jobsets(kube, namespace, 2)
    wait_for(
        lambda: all(
            n in {g["metadata"]["ownerReferences"][0]["name"] for g in kube.list(*KAI, namespace)}
            for n in expected
        ),
        "groups for the readable JobSets",
    )
    assert operator.healthy()


# Exponential backtracking on every evaluation: Python's re held the event loop forever.
HOSTILE_CONDITIONS = '.status.conditions | select("a" * 5000 + "b" | test("(a|aa)+$") | not)'


def test_a_hostile_definition_does_not_stop_the_operator(
    kube: Kube, namespace: str, definition_crds: None, operator: OperatorProcess
) -> None:
    created = kube.create(
        {
            "apiVersion": WORKLOADMAP[0],
            "kind": WORKLOADMAP[1],
            **lws_definition("lws-hostile", HOSTILE_CONDITIONS),
        }
    )
    try:
        wait_for(
            lambda: (
                ((kube.get(*WORKLOADMAP, None, "lws-hostile") or {}).get("status") or {}).get(
                    "generationInUse"
                )
                == 1
            ),
            "the hostile definition in use",
        )
        (lws,) = load("lws-leaderworkerset/sample-v1.yaml")
        kube.create(lws, namespace)
        wait_for(
            lambda: "exceeded the evaluation's time limit" in operator.output(),
            "a warning that the hostile expression was stopped",
        )
        # the JobSets created after it are reconciled while it is being interpreted
        expected = jobsets(kube, namespace, 2)

        def jobset_groups() -> dict[str, int]:
            return {
                g["metadata"]["ownerReferences"][0]["name"]: min_member(g)
                for g in kube.list(*KAI, namespace)
                if g["metadata"]["ownerReferences"][0]["kind"] == "JobSet"
            }

        wait_for(lambda: jobset_groups() == expected, "groups for the JobSets")
        assert operator.healthy()
        assert "definition cluster:WorkloadMap/lws-hostile cannot read all of" in operator.output()
    finally:
        kube.delete(created)
