"""Gang objects kept as they should be: restored when deleted or edited by someone else,
rewritten when their definition changes, and deleted when their workload is gone."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.integration.kube import Kube, load, wait_for
from tests.integration.load import KAI, min_member
from tests.integration.operator_process import OperatorProcess
from tests.integration.test_operator_refusals import (  # the same fixtures and helpers
    definition_crds,  # noqa: F401 - a fixture
    jobset_definition,
    owned_groups,
    stored_definition,  # noqa: F401 - a fixture
)
from tests.integration.testcluster import TestCluster


def jobset(kube: Kube, namespace: str, name: str = "coordinator-example") -> dict[str, Any]:
    (obj,) = load("jobset/coordinator.yaml")
    obj["metadata"]["name"] = name
    return kube.create(obj, namespace)


def one_group(kube: Kube, namespace: str, obj: dict[str, Any], minimum: int) -> Any:
    def check() -> dict[str, Any] | None:
        found = owned_groups(kube, namespace, obj)
        return found[0] if len(found) == 1 and min_member(found[0]) == minimum else None

    return check


def test_a_deleted_group_is_restored(kube: Kube, namespace: str, operator: OperatorProcess) -> None:
    made = jobset(kube, namespace)
    group = wait_for(one_group(kube, namespace, made, 5), "the PodGroup")
    kube.delete(group)
    restored = wait_for(one_group(kube, namespace, made, 5), "the PodGroup restored")
    assert restored["metadata"]["uid"] != group["metadata"]["uid"]
    assert restored["metadata"]["name"] == group["metadata"]["name"]


def test_a_group_edited_by_someone_else_is_restored(
    kube: Kube, namespace: str, operator: OperatorProcess
) -> None:
    made = jobset(kube, namespace)
    group = wait_for(one_group(kube, namespace, made, 5), "the PodGroup")
    kube.patch(
        group,
        {"spec": {"minSubGroup": 0, "subGroups": [{"name": "replicatedjob", "minMember": 1}]}},
    )
    wait_for(
        lambda: (
            min_member(kube.get(*KAI, namespace, group["metadata"]["name"]) or {"spec": {}}) == 5
        ),
        "minMember 5 again",
    )


def test_a_changed_definition_rewrites_the_groups_of_its_workloads(
    kube: Kube,
    namespace: str,
    operator: OperatorProcess,
    stored_definition: list[dict[str, Any]],  # noqa: F811 - the fixture
) -> None:
    made = jobset(kube, namespace)
    wait_for(one_group(kube, namespace, made, 5), "the PodGroup")
    # one pod per Job: 1 worker Job + 1 driver Job
    stored_definition.append(
        kube.create(jobset_definition("jobset-one-pod-per-job", ".spec.replicatedJobs[]? | 1"))
    )
    wait_for(one_group(kube, namespace, made, 2), "minMember 2 under the new definition")
    kube.delete(stored_definition.pop())
    wait_for(one_group(kube, namespace, made, 5), "minMember 5 under the catalog again")


def test_groups_of_workloads_deleted_while_the_operator_was_away_are_removed_at_start(
    cluster: TestCluster, kube: Kube, namespace: str, tmp_path: Path
) -> None:
    process = OperatorProcess(cluster.kubeconfig, namespace, tmp_path / "op.log").start()
    try:
        gone, kept = jobset(kube, namespace, "gone"), jobset(kube, namespace, "kept")
        wait_for(one_group(kube, namespace, gone, 5), "the group of the first JobSet")
        wait_for(one_group(kube, namespace, kept, 5), "the group of the second JobSet")
        process.stop()
        kube.delete(gone)  # no garbage collector runs in the test cluster
        assert len(owned_groups(kube, namespace, gone)) == 1
        process.start()
        wait_for(lambda: owned_groups(kube, namespace, gone) == [], "the orphan removed")
        assert len(owned_groups(kube, namespace, kept)) == 1
    finally:
        process.stop()
