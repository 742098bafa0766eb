"""Counts beside templates: a count over every role, one total split between a leader and
workers, and a minimum over every role shared out between them."""

from __future__ import annotations

from typing import Any

from wlmap.definitions import definition_from_mapping
from wlmap.infer import infer
from wlmap.workload import interpret

from ._crds import POD_TEMPLATE, crd, obj, template
from ._views import components, valid


def test_a_count_on_the_spec_replicates_every_role_below_it() -> None:
    holder = {
        "type": "object",
        "properties": {"size": {"type": "integer"}, "leader": POD_TEMPLATE, "worker": POD_TEMPLATE},
    }
    source = crd(
        {"type": "object", "properties": {"replicas": {"type": "integer"}, "group": holder}}
    )
    draft = infer(source)
    valid(draft, source)
    workload = obj(
        {"replicas": 2, "group": {"size": 3, "leader": template(), "worker": template()}}
    )
    assert components(draft, workload)[1:] == [
        ("replica", None, 2),
        ("leader", None, 3),
        ("worker", None, 3),
    ]
    assert any(e.subject == "component replica" for e in draft.review)


def test_a_total_count_beside_a_leader_template_leaves_the_rest_to_the_workers() -> None:
    size = {"type": "integer", "description": "The total number of pods in each group."}
    holder = {
        "type": "object",
        "properties": {
            "size": size,
            "leaderTemplate": POD_TEMPLATE,
            "workerTemplate": POD_TEMPLATE,
        },
    }
    replicas = {"type": "integer", "description": "The number of groups."}
    source = crd({"type": "object", "properties": {"replicas": replicas, "group": holder}})
    draft = infer(source)
    valid(draft, source)
    workload = obj(
        {
            "replicas": 2,
            "group": {"size": 4, "leaderTemplate": template(), "workerTemplate": template()},
        }
    )
    assert components(draft, workload)[1:] == [
        ("group", None, 2),
        ("leader", None, 1),
        ("worker", None, 3),
    ]
    assert [e.choice for e in draft.review if e.subject == "replicasPath"] == [
        "1",
        "(.spec.group.size // 1) - 1",
    ]


def test_a_minimum_on_the_spec_is_shared_out_over_the_roles_in_order() -> None:
    integer = {"type": "integer"}
    task = {
        "type": "object",
        "properties": {
            "name": {"type": "string"},
            "replicas": integer,
            "minAvailable": integer,
            "template": POD_TEMPLATE,
        },
    }
    tasks = {"type": "array", "items": task}
    source = crd({"type": "object", "properties": {"minAvailable": integer, "tasks": tasks}})
    draft = infer(source)
    valid(draft, source)
    assert "minReplicasPath" in {e.subject for e in draft.review}
    definition = definition_from_mapping(draft.definition, "draft")

    def minimums(whole: int | None, *roles: dict[str, int]) -> list[int | None]:
        listed = [{"name": f"t{i}", **r, "template": template()} for i, r in enumerate(roles)]
        spec: dict[str, Any] = {"tasks": listed}
        if whole is not None:
            spec["minAvailable"] = whole
        view = interpret(definition, obj(spec)).to_dict()
        return [c["minReplicas"] for c in view["components"][1:]]

    # Six replicas, three needed: the whole's minimum, not the role's count.
    assert minimums(3, {"replicas": 6}) == [3]
    # Less than the roles' own minimums: handed out in order.
    assert minimums(3, {"replicas": 2}, {"replicas": 4, "minAvailable": 2}) == [2, 1]
    # More: the excess in order, each role up to its count.
    assert minimums(5, {"replicas": 2, "minAvailable": 1}, {"replicas": 4, "minAvailable": 1}) == [
        2,
        3,
    ]
    # No whole minimum: each role keeps its own (its count when it has none).
    assert minimums(None, {"replicas": 2}, {"replicas": 4, "minAvailable": 1}) == [2, 1]


def test_a_default_only_the_description_states_is_the_fallback() -> None:
    role = {
        "type": "object",
        "properties": {
            "replicas": {"type": "integer", "description": "If unspecified, defaults to 3."},
            "template": POD_TEMPLATE,
        },
    }
    source = crd({"type": "object", "properties": {"roles": {"type": "array", "items": role}}})
    draft = infer(source)
    valid(draft, source)
    workload = obj({"roles": [{"template": template()}, {"replicas": 2, "template": template()}]})
    assert [count for _, _, count in components(draft, workload)[1:]] == [3, 2]
    assert any("3 when unset by its description" in e.reason for e in draft.evidence)
