"""Counts beside templates: a count over every role, and one total split between a leader and workers."""

from __future__ import annotations

from wlmap.infer import infer

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
