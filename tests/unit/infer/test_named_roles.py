"""Roles kept as fixed sibling fields of one object: one component, an instance per field set."""

from __future__ import annotations

from typing import Any

from wlmap.definitions import definition_from_mapping
from wlmap.infer import Draft, infer
from wlmap.workload import interpret

from ._crds import POD_TEMPLATE, crd, obj, template
from ._views import valid

_ROLE = {
    "type": "object",
    "properties": {"replicas": {"type": "integer"}, "template": POD_TEMPLATE},
}
_RESOURCES = {
    "type": "object",
    "properties": {
        "limits": {"type": "object", "additionalProperties": {"type": "string"}},
        "requests": {"type": "object", "additionalProperties": {"type": "string"}},
    },
}
_FIELDS_ROLE = {
    "type": "object",
    "properties": {
        "image": {"type": "string"},
        "resources": _RESOURCES,
        "replicas": {"type": "integer"},
    },
}


def _view(draft: Draft, source: dict[str, Any], workload: dict[str, Any]) -> dict[str, Any]:
    valid(draft, source)
    return interpret(definition_from_mapping(draft.definition, "draft"), workload).to_dict()


def _spec(roles: dict[str, Any], names: tuple[str, ...]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {"services": {"type": "object", "properties": dict.fromkeys(names, roles)}},
    }


def test_three_alike_sibling_roles_are_one_component_named_by_their_fields() -> None:
    source = crd(_spec(_ROLE, ("api", "cache", "indexer")))
    workload = obj(
        {
            "services": {
                "api": {"replicas": 3, "template": template()},
                "indexer": {"template": template()},
            }
        }
    )
    view = _view(infer(source), source, workload)
    assert [(c["name"], c["instance"], c["replicas"]) for c in view["components"][1:]] == [
        ("service", "api", 3),
        ("service", "indexer", 1),
    ]
    assert view["totals"]["pods"] == 4


def test_two_alike_siblings_stay_two_roles() -> None:
    source = crd(_spec(_ROLE, ("leader", "follower")))
    workload = obj(
        {
            "services": {
                "leader": {"template": template()},
                "follower": {"replicas": 2, "template": template()},
            }
        }
    )
    view = _view(infer(source), source, workload)
    assert [(c["name"], c["instance"]) for c in view["components"][1:]] == [
        ("leader", None),
        ("follower", None),
    ]


def test_roles_described_field_by_field_read_each_instance_own_fields() -> None:
    source = crd(_spec(_FIELDS_ROLE, ("proxy", "dataNode", "queryNode")))
    gpu = {"limits": {"nvidia.com/gpu": "1"}}
    workload = obj(
        {
            "services": {
                "proxy": {"image": "db:1", "resources": {"limits": {"cpu": "1"}}},
                "queryNode": {"image": "db:1", "resources": gpu, "replicas": 2},
            }
        }
    )
    view = _view(infer(source), source, workload)
    assert [
        (c["name"], c["instance"], c["replicas"], c["gpus"]) for c in view["components"][1:]
    ] == [
        ("service", "proxy", 1, 0),
        ("service", "queryNode", 2, 2),
    ]
