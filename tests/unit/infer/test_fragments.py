"""Pods described field by field (no template): drafted from an image beside resources."""

from __future__ import annotations

from typing import Any

import pytest

from wlmap.definitions import definition_from_mapping, validate_definition
from wlmap.definitions.schema_check import crd_problems
from wlmap.errors import ManifestError
from wlmap.infer import infer
from wlmap.workload import interpret

from ._crds import crd, obj

_RESOURCES: dict[str, Any] = {
    "type": "object",
    "properties": {"limits": {"type": "object"}, "requests": {"type": "object"}},
}
_IMAGE_OBJECT: dict[str, Any] = {
    "type": "object",
    "properties": {"repository": {"type": "string"}, "tag": {"type": "string"}},
}
_CONTAINER_LIST: dict[str, Any] = {
    "type": "array",
    "items": {
        "type": "object",
        "properties": {"image": {"type": "string"}, "resources": _RESOURCES},
    },
}


def _role(image: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {
            "image": image,
            "resources": _RESOURCES,
            "replicas": {"type": "integer"},
            "schedulerName": {"type": "string"},
            "sidecarContainers": _CONTAINER_LIST,
        },
    }


def _view(draft: Any, spec: dict[str, Any]) -> dict[str, Any]:
    definition = definition_from_mapping(draft.definition, "draft")
    view: dict[str, Any] = interpret(definition, obj(spec)).to_dict()
    return view


def test_an_image_beside_resources_is_a_pod_built_from_fields() -> None:
    source = crd(_role(_IMAGE_OBJECT))
    draft = infer(source)
    definition = definition_from_mapping(draft.definition, "draft")
    assert [p for p in validate_definition(definition) if p.severity != "warning"] == []
    assert crd_problems(definition, source) == []
    (child,) = draft.definition["spec"]["structureDefinition"]["childComponents"]
    fields = child["specDefinition"]["fragmentedPodSpecDefinition"]
    assert fields["resourcesPath"] == ".spec.resources"
    assert fields["schedulerNamePath"] == ".spec.schedulerName"
    spec = {
        "image": {"repository": "nvcr.io/nim/llama", "tag": "1.0"},
        "replicas": 2,
        "resources": {"limits": {"nvidia.com/gpu": 4}},
    }
    view = _view(draft, spec)
    (pods,) = view["components"][1:]
    assert (pods["replicas"], pods["gpusPerPod"], pods["gpus"]) == (2, 4, 8)
    # The pod fields are a guess for review.
    assert "pod fields" in {e.subject for e in draft.review}


def test_the_innermost_roles_are_the_pods_not_the_defaults_above_them() -> None:
    spec = {
        "type": "object",
        "properties": {
            "components": {
                "type": "object",
                "properties": {
                    "image": {"type": "string"},
                    "resources": _RESOURCES,
                    "proxy": _role({"type": "string"}),
                    "queryNodes": _role({"type": "string"}),
                },
            }
        },
    }
    draft = infer(crd(spec))
    names = [c["name"] for c in draft.definition["spec"]["structureDefinition"]["childComponents"]]
    assert names == ["proxy", "queryNode"]
    view = _view(
        draft,
        {"components": {"proxy": {"replicas": 3}, "queryNodes": {"image": "q", "replicas": 1}}},
    )
    assert [(c["name"], c["replicas"]) for c in view["components"][1:]] == [
        ("proxy", 3),
        ("queryNode", 1),
    ]


def test_a_container_list_is_not_a_role() -> None:
    source = crd({"type": "object", "properties": {"sidecarContainers": _CONTAINER_LIST}})
    with pytest.raises(ManifestError, match="no object with an image beside container resources"):
        infer(source)


def test_resources_per_node_beside_an_image_and_a_node_count() -> None:
    trainer = {
        "type": "object",
        "properties": {
            "image": {"type": "string"},
            "numNodes": {"type": "integer"},
            "resourcesPerNode": _RESOURCES,
        },
    }
    draft = infer(crd({"type": "object", "properties": {"trainer": trainer}}))
    spec = {
        "trainer": {
            "image": "t",
            "numNodes": 4,
            "resourcesPerNode": {"limits": {"nvidia.com/gpu": 8}},
        }
    }
    (pods,) = _view(draft, spec)["components"][1:]
    assert (pods["name"], pods["replicas"], pods["gpus"]) == ("trainer", 4, 32)
