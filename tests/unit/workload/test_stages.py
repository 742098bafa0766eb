"""Start stages read from a definition: the order a JobSet declares, and a definition
whose stage expression gives the wrong shape (the gang stays whole, the problem said)."""

from __future__ import annotations

from itertools import pairwise
from typing import Any

import pytest

from tests.corpus import corpus_object
from wlmap.catalog import builtin_registry
from wlmap.definitions import Definition
from wlmap.workload import interpret
from wlmap.workload.gangs import scheduled_gangs


def _jobset(relative: str) -> dict[str, Any]:
    return corpus_object(relative, "JobSet")


def _builtin() -> Definition:
    entry = builtin_registry().find("jobset.x-k8s.io/v1alpha2", "JobSet")
    assert entry is not None
    return entry.definition


def _with_stages(expression: str) -> Definition:
    data = _builtin().model_dump(by_alias=True, exclude_none=True)
    stages = data["spec"]["optimizationInstructions"]["gangScheduling"]["podGroup"]["stages"]
    stages["startsAfterPath"] = expression
    return Definition.model_validate(data)


def test_in_order_startup_makes_each_replicated_job_a_stage() -> None:
    # startupPolicyOrder InOrder: each replicatedJob starts once the one before is ready
    obj = _jobset("jobset/group.yaml")
    obj["spec"]["startupPolicy"] = {"startupPolicyOrder": "InOrder"}
    names = [job["name"] for job in obj["spec"]["replicatedJobs"]]
    gangs = scheduled_gangs(interpret(_builtin(), obj).gang_groups)
    assert [g.key for g in gangs] == [(name,) for name in names]
    assert [g.starts_after for g in gangs] == [
        None,
        *(f"replicatedJob {b} starts after {a}" for a, b in pairwise(names)),
    ]


def test_the_same_jobset_in_any_order_is_one_gang() -> None:
    obj = _jobset("jobset/group.yaml")
    [gang] = scheduled_gangs(interpret(_builtin(), obj).gang_groups)
    assert gang.key is None and gang.starts_after is None


@pytest.mark.parametrize(
    ("expression", "says"),
    [
        ("[]", "gave 1 result(s) for 3 instance(s)"),
        (".spec.replicatedJobs[]? | 7", "expected an instance id or {name, status}"),
    ],
)
def test_a_stage_expression_of_the_wrong_shape_leaves_the_gang_whole(
    expression: str, says: str
) -> None:
    obj = _jobset("jobset/multiple-depends-on.yaml")
    view = interpret(_with_stages(expression), obj)
    [gang] = scheduled_gangs(view.gang_groups)
    assert gang.key is None  # one gang over every replicatedJob, as without stages
    assert any(says in problem for problem in view.gang_issues)
