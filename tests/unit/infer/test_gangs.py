"""Gangs a kind declares in its descriptions: one per replica of the roles, job or not."""

from __future__ import annotations

from typing import Any

from wlmap.definitions import definition_from_mapping
from wlmap.infer import infer
from wlmap.workload import interpret

from ._crds import ROLE_LIST, crd, obj, template


def _source(described: str) -> dict[str, Any]:
    """A service-like kind (no completion, no suspend): replicas of a set of roles."""
    holder = {"type": "object", "description": described, "properties": {"roles": ROLE_LIST}}
    spec = {"type": "object", "properties": {"replicas": {"type": "integer"}, "template": holder}}
    return crd(spec)


_SAMPLE = obj(
    {
        "replicas": 2,
        "template": {
            "roles": [
                {"name": "a", "replicas": 2, "template": template()},
                {"name": "b", "template": template()},
            ]
        },
    }
)


def _pod(replica: int, role: str, index: int) -> dict[str, Any]:
    labels = {"example.com/set": "w", "example.com/set-replica-index": str(replica)}
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": f"w-{replica}-{role}-{index}",
            "namespace": "default",
            "labels": {**labels, "example.com/role": role},
        },
        "spec": {"containers": [{"name": "main", "image": "busybox"}]},
    }


_PODS = [_pod(r, role, i) for r in (0, 1) for role, n in (("a", 2), ("b", 1)) for i in range(n)]


def _groups(definition: dict[str, Any]) -> list[tuple[str, list[str] | None]]:
    view = interpret(definition_from_mapping(definition, "draft"), _SAMPLE, pods=_PODS).to_dict()
    return [(g["name"], g["pods"] or None) for g in view["gangGroups"]]


def test_a_template_described_as_gangs_makes_each_replica_a_gang() -> None:
    draft = infer(_source("The template of the PodGangs each replica makes."))
    gang = draft.definition["spec"]["optimizationInstructions"]["gangScheduling"]
    # One group per replica component; without pods its members are also keyed by a
    # label named after the kind, which every replica's pods share.
    groups = [(g["name"], [m["componentName"] for m in g["members"]]) for g in gang["podGroups"]]
    assert groups == [("replica", ["replica"])]
    assert gang["podGroup"] == {"name": "widget"}
    assert "gangScheduling" in {e.subject for e in draft.review}


def test_the_pods_tell_the_replicas_of_a_gang_apart() -> None:
    draft = infer(_source("The template of the gangs."), samples=[_SAMPLE], pods=_PODS)
    # Two replicas of three pods (a x2, b x1): the workload, then one gang per replica.
    assert _groups(draft.definition) == [
        ("widget", [p["metadata"]["name"] for p in _PODS]),
        ("replica-w-0", ["w-0-a-0", "w-0-a-1", "w-0-b-0"]),
        ("replica-w-1", ["w-1-a-0", "w-1-a-1", "w-1-b-0"]),
    ]


def test_a_service_that_says_nothing_of_gangs_has_none() -> None:
    draft = infer(_source("The template of the roles each replica makes."))
    assert "optimizationInstructions" not in draft.definition["spec"]
