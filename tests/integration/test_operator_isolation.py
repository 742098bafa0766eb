"""One slow definition's cost lands on its own workloads only: while a WorkloadMap whose
every evaluation is killed at the time limit serves 20 LeaderWorkerSets, JobSets in another
namespace get their gangs within a second throughout, and the slow definition is
quarantined with ``Degraded=True`` (reason ``Quarantined``)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.integration.kube import Kube, wait_for
from tests.integration.operator_process import OperatorProcess
from tests.integration.slow_definition import (
    DEFINITION_CRDS,
    WORKLOADMAP,
    degraded,
    jobset_latencies,
    leaderworkersets,
    slow_lws_definition,
)
from tests.integration.testcluster import TestCluster

NAME = "lws-slow-workers"


@pytest.fixture(scope="module")
def definition_crds(kube: Kube) -> None:
    kube.install_crds(DEFINITION_CRDS)


@pytest.fixture
def slow_definition(kube: Kube, definition_crds: None) -> Iterator[dict[str, Any]]:
    made = kube.create(
        {"apiVersion": WORKLOADMAP[0], "kind": WORKLOADMAP[1]} | slow_lws_definition(NAME)
    )
    yield made
    kube.delete(made)


@pytest.fixture
def two_namespaces(
    cluster: TestCluster, kube: Kube, namespace: str, tmp_path: Path, definition_crds: None
) -> Iterator[tuple[str, str, OperatorProcess]]:
    """The test's namespace for the JobSets and another for the LeaderWorkerSets, both
    served by one operator."""
    other = kube.namespace(f"{namespace[:40]}-lws")
    process = OperatorProcess(
        cluster.kubeconfig, namespace, tmp_path / "operator.log", arguments=("-n", other)
    )
    try:
        yield namespace, other, process.start()
    finally:
        process.stop()


def test_a_slow_definition_does_not_delay_other_workloads_gangs(
    kube: Kube,
    two_namespaces: tuple[str, str, OperatorProcess],
    slow_definition: dict[str, Any],
) -> None:
    jobsets, lws, operator = two_namespaces
    baseline = jobset_latencies(kube, jobsets, "before", duration=3)
    made = leaderworkersets(kube, lws, 20)
    during = jobset_latencies(kube, jobsets, "during", duration=30)
    # loosely: the issue saw 25-33 s here; the baseline is a fraction of a second
    assert during.worst() < 1.0, (baseline.seconds, during.seconds)
    assert len(during.seconds) >= 15
    condition = wait_for(
        lambda: degraded(kube, NAME).get("reason") == "Quarantined" and degraded(kube, NAME),
        "the slow definition quarantined",
    )
    # every evaluation is killed at the time limit: failing in a row or over the time
    # budget, whichever comes first
    assert condition["status"] == "True"
    assert "KeepsFailing" in condition["message"] or "OverBudget" in condition["message"]
    skipped = [
        e
        for e in kube.list("v1", "Event", lws)
        if e["reason"] == "DefinitionQuarantined"
        and e["involvedObject"]["uid"] in {o["metadata"]["uid"] for o in made}
    ]
    assert skipped and NAME in skipped[0]["message"]
    assert "quarantined" in operator.output()
