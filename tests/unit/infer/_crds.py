"""Small hand-made CRDs, one per shape the inference must recognise."""

from __future__ import annotations

from typing import Any

CONTAINERS: dict[str, Any] = {
    "type": "array",
    "items": {
        "type": "object",
        "properties": {"name": {"type": "string"}, "image": {"type": "string"}},
    },
}
POD_SPEC: dict[str, Any] = {"type": "object", "properties": {"containers": CONTAINERS}}
POD_TEMPLATE: dict[str, Any] = {
    "type": "object",
    "properties": {"metadata": {"type": "object"}, "spec": POD_SPEC},
}
# a list of roles, each named, counted and holding a pod template
ROLE_LIST: dict[str, Any] = {
    "type": "array",
    "items": {
        "type": "object",
        "properties": {
            "name": {"type": "string"},
            "replicas": {"type": "integer"},
            "template": POD_TEMPLATE,
        },
    },
}
CONDITIONS: dict[str, Any] = {
    "type": "array",
    "items": {
        "type": "object",
        "properties": {"type": {"type": "string"}, "status": {"type": "string"}},
    },
}


def crd(
    spec: dict[str, Any], status: dict[str, Any] | None = None, kind: str = "Widget"
) -> dict[str, Any]:
    """A CRD of ``<kind>.example.com/v1`` with the given spec (and status) schema."""
    properties: dict[str, Any] = {"spec": spec}
    if status is not None:
        properties["status"] = status
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": f"{kind.lower()}s.example.com"},
        "spec": {
            "group": "example.com",
            "names": {"kind": kind, "plural": f"{kind.lower()}s"},
            "scope": "Namespaced",
            "versions": [
                {
                    "name": "v1",
                    "served": True,
                    "storage": True,
                    "schema": {"openAPIV3Schema": {"type": "object", "properties": properties}},
                }
            ],
        },
    }


def obj(
    spec: dict[str, Any], status: dict[str, Any] | None = None, name: str = "w"
) -> dict[str, Any]:
    """A Widget object."""
    out: dict[str, Any] = {
        "apiVersion": "example.com/v1",
        "kind": "Widget",
        "metadata": {"name": name, "namespace": "default", "uid": f"uid-{name}"},
        "spec": spec,
    }
    if status is not None:
        out["status"] = status
    return out


def template(image: str = "busybox") -> dict[str, Any]:
    """A pod template as an object holds it."""
    return {"spec": {"containers": [{"name": "main", "image": image}]}}
