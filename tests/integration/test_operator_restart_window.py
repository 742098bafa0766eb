"""The operator across an API server restart: a gang deleted by hand right after the
restart comes back within seconds (the server's 503s while it installs its paths are
retried, not taken for a refusal), and a workload deleted while the operator's watches
were down loses its gang objects, although no DELETED event ever comes (the test
cluster runs no garbage collector)."""

from __future__ import annotations

import copy
import signal
import time
from typing import Any

from tests.integration.kube import Kube, load, wait_for
from tests.integration.load import KAI, converged, expected_minimum
from tests.integration.operator_process import OperatorProcess
from tests.integration.testcluster import TestCluster

BACK_WITHIN_SECONDS = 10.0  # it took 37-48 s when a 503 was taken for a refusal
SWEPT_WITHIN_SECONDS = 30.0  # it took until the next start when only a start swept


def jobsets(kube: Kube, namespace: str, names: list[str]) -> dict[str, dict[str, Any]]:
    (template,) = load("jobset/coordinator.yaml")
    made = {}
    for name in names:
        obj = copy.deepcopy(template)
        obj["metadata"]["name"] = name
        made[name] = kube.create(obj, namespace)
    return made


def gangs_by_owner(kube: Kube, namespace: str) -> dict[str, dict[str, Any]]:
    return {
        group["metadata"]["ownerReferences"][0]["name"]: group
        for group in kube.list(*KAI, namespace)
    }


def test_a_gang_deleted_right_after_an_api_server_restart_is_back_within_seconds(
    cluster: TestCluster, kube: Kube, namespace: str, operator: OperatorProcess
) -> None:
    made = jobsets(kube, namespace, ["js-0"])
    expected = {name: expected_minimum(obj) for name, obj in made.items()}
    wait_for(converged(kube, namespace, expected), "the group before the restart")
    cluster.stop_apiserver()
    cluster.start_apiserver()
    before = gangs_by_owner(kube, namespace)["js-0"]
    kube.delete(before)
    deleted = time.monotonic()

    def back() -> bool:
        again = gangs_by_owner(kube, namespace).get("js-0")
        return again is not None and again["metadata"]["uid"] != before["metadata"]["uid"]

    wait_for(back, "the deleted group back", timeout=60)
    took = time.monotonic() - deleted
    assert took < BACK_WITHIN_SECONDS, f"the group came back {took:.1f} s after its deletion"
    assert "cannot watch" not in operator.output()  # a restart is not a refusal
    assert operator.healthy()


def test_a_workload_deleted_while_the_watches_were_down_loses_its_gang(
    cluster: TestCluster, kube: Kube, namespace: str, operator: OperatorProcess
) -> None:
    made = jobsets(kube, namespace, ["kept", "deleted"])
    expected = {name: expected_minimum(obj) for name, obj in made.items()}
    wait_for(converged(kube, namespace, expected), "the groups before the restart")
    assert operator.process is not None
    operator.process.send_signal(signal.SIGSTOP)  # sees nothing until the server is back
    try:
        cluster.stop_apiserver()
        cluster.start_apiserver()
        kube.delete(made["deleted"])
    finally:
        operator.process.send_signal(signal.SIGCONT)
    resumed = time.monotonic()

    wait_for(
        lambda: set(gangs_by_owner(kube, namespace)) == {"kept"},
        "the deleted JobSet's group gone",
        timeout=SWEPT_WITHIN_SECONDS,
    )
    assert time.monotonic() - resumed < SWEPT_WITHIN_SECONDS
    assert converged(kube, namespace, {"kept": expected["kept"]})()
    assert operator.healthy()
