"""Pod selectors and gangs from sample objects and their pods."""

from __future__ import annotations

from typing import Any

from wlmap.definitions import definition_from_mapping
from wlmap.infer import infer
from wlmap.workload import interpret

from ._crds import CONDITIONS, POD_TEMPLATE, crd, obj, template


def _pod(name: str, labels: dict[str, str]) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": name,
            "namespace": "default",
            "labels": labels,
            "ownerReferences": [{"kind": "Widget", "name": "w", "uid": "uid-w"}],
        },
        "spec": {"containers": [{"name": "main", "image": "busybox"}]},
    }


ROLE = {"type": "object", "properties": {"replicas": {"type": "integer"}, "template": POD_TEMPLATE}}
SOURCE = crd(
    {"type": "object", "properties": {"roles": {"type": "object", "additionalProperties": ROLE}}},
    {"type": "object", "properties": {"conditions": CONDITIONS}},
)
SAMPLE = obj(
    {
        "roles": {
            "Launcher": {"replicas": 1, "template": template()},
            "Worker": {"replicas": 2, "template": template()},
        }
    }
)
PODS = [
    _pod(
        "w-launcher-0",
        {"example.com/job": "w", "example.com/role": "launcher", "example.com/index": "0"},
    ),
    _pod(
        "w-worker-0",
        {"example.com/job": "w", "example.com/role": "worker", "example.com/index": "0"},
    ),
    _pod(
        "w-worker-1",
        {"example.com/job": "w", "example.com/role": "worker", "example.com/index": "1"},
    ),
]


def test_labels_that_name_roles_become_selectors_and_pods_are_attributed() -> None:
    draft = infer(SOURCE, samples=[SAMPLE], pods=PODS)
    children = draft.definition["spec"]["structureDefinition"]["childComponents"]
    assert children[1]["podSelector"]["componentTypeSelector"] == {
        "keyPath": '.metadata.labels["example.com/role"]',
        "value": "worker",
    }
    view = interpret(definition_from_mapping(draft.definition, "d"), SAMPLE, pods=PODS).to_dict()
    assert [(c["name"], c["pods"]) for c in view["components"][1:]] == [
        ("launcher", 1),
        ("worker", 2),
    ]


def test_a_job_of_several_pods_is_one_gang_grouped_by_its_label() -> None:
    # The sample shows the kind can complete (a Succeeded condition): it is a job.
    done = {**SAMPLE, "status": {"conditions": [{"type": "Succeeded", "status": "True"}]}}
    gang = infer(SOURCE, samples=[done], pods=PODS).definition["spec"]["optimizationInstructions"]
    assert gang["gangScheduling"]["podGroup"] == {"name": "widget"}
    (group,) = gang["gangScheduling"]["podGroups"]
    assert group["members"][0]["groupByKeyPaths"] == ['.metadata.labels["example.com/job"]']


def test_completion_only_guessed_from_common_condition_types_makes_no_gang() -> None:
    # Services and node sets run many pods too; nothing here says the kind ever completes.
    assert (
        "optimizationInstructions"
        not in infer(SOURCE, samples=[SAMPLE], pods=PODS).definition["spec"]
    )


TASK = {
    "type": "object",
    "properties": {
        "name": {"type": "string"},
        "replicas": {"type": "integer"},
        "template": POD_TEMPLATE,
    },
}
TASKS = crd(
    {"type": "object", "properties": {"tasks": {"type": "array", "items": TASK}}},
    {"type": "object", "properties": {"phase": {"type": "string", "enum": ["Completed"]}}},
)
TASK_SAMPLE = obj(
    {
        "tasks": [
            {"name": "ps", "replicas": 1, "template": template()},
            {"name": "worker", "replicas": 2, "template": template()},
        ]
    }
)


def _task_pod(name: str, task: str, index: str, owner: str = "w") -> dict[str, Any]:
    return _pod(
        name,
        {
            "example.com/widget-namespace": "default",
            "example.com/widget-name": owner,
            "example.com/task-index": index,
            "example.com/task-spec": task,
        },
    )


def test_without_pods_a_label_named_after_the_role_names_the_instance() -> None:
    draft = infer(TASKS)
    assert "podSelector instance" in {e.subject for e in draft.review}
    pods = [_task_pod("w-ps-0", "ps", "0"), _task_pod("w-worker-1", "worker", "1")]
    view = interpret(definition_from_mapping(draft.definition, "d"), TASK_SAMPLE, pods=pods)
    seen = [(c["instance"], c["podsObserved"]) for c in view.to_dict()["components"][1:]]
    assert seen == [("ps", 1), ("worker", 1)]


def test_without_pods_a_job_is_grouped_by_the_label_named_after_its_kind() -> None:
    draft = infer(TASKS)
    assert "gangScheduling" in draft.definition["spec"]["optimizationInstructions"]
    definition = definition_from_mapping(draft.definition, "d")
    pods = [
        _task_pod("w-ps-0", "ps", "0"),
        _task_pod("w-worker-0", "worker", "0"),
        _task_pod("w-worker-1", "worker", "1"),
    ]
    view = interpret(definition, TASK_SAMPLE, pods=pods).to_dict()
    assert [(g["name"], g["minMember"]) for g in view["gangGroups"]] == [
        ("widget", 3),
        ("widget-w", 3),
    ]


def test_without_pods_a_label_naming_the_role_selects_its_pods() -> None:
    draft = infer(SOURCE, samples=[SAMPLE])
    assert "podSelector type" in {e.subject for e in draft.review}
    stray = _pod("w-sidecar", {"example.com/job": "w", "example.com/role": "sidecar"})
    view = interpret(
        definition_from_mapping(draft.definition, "d"), SAMPLE, pods=[*PODS, stray]
    ).to_dict()
    assert [(c["name"], c["pods"]) for c in view["components"][1:]] == [
        ("launcher", 1),
        ("worker", 2),
    ]
    assert [p["name"] for p in view["unclaimedPods"]] == ["w-sidecar"]
