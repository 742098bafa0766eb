"""Normalizing the three pod spec shapes into one pod template per component instance."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

# Fragmented field -> where its value lands in a normalized pod template.
FRAGMENT_TARGETS: dict[str, tuple[str, ...]] = {
    "schedulerNamePath": ("spec", "schedulerName"),
    "labelsPath": ("metadata", "labels"),
    "annotationsPath": ("metadata", "annotations"),
    "priorityClassNamePath": ("spec", "priorityClassName"),
    "resourceClaimsPath": ("spec", "resourceClaims"),
    "podAffinityPath": ("spec", "affinity", "podAffinity"),
    "nodeAffinityPath": ("spec", "affinity", "nodeAffinity"),
}


def template_from_template_spec(value: Any) -> dict[str, Any] | None:
    """A PodTemplateSpec as found (``None`` when absent or not an object)."""
    if not _is_mapping(value):
        return None
    metadata = value.get("metadata")
    spec = value.get("spec")
    return {
        "metadata": dict(metadata) if _is_mapping(metadata) else {},
        "spec": dict(spec) if _is_mapping(spec) else {},
    }


def template_from_pod_spec(spec: Any, metadata: Any) -> dict[str, Any] | None:
    """A template from a bare PodSpec and optional separate ObjectMeta."""
    spec_is, metadata_is = _is_mapping(spec), _is_mapping(metadata)
    if not spec_is and not metadata_is:
        return None
    return {
        "metadata": dict(metadata) if metadata_is else {},
        "spec": dict(spec) if spec_is else {},
    }


def _is_mapping(value: Any) -> bool:
    """``isinstance(value, Mapping)``, answered without the abstract check for the usual
    values (a plain dict, or null for an absent field): that check costs more than the
    copy of the dict."""
    return type(value) is dict or (value is not None and isinstance(value, Mapping))


def template_from_fragments(fragments: Mapping[str, Any]) -> dict[str, Any] | None:
    """A template assembled from per-field values (keys are fragmented field names).

    Containers come from ``containersPath`` and ``containerPath`` together; when neither
    is set, ``resourcesPath`` and ``imagePath`` describe one synthetic container.
    """
    if all(v is None for v in fragments.values()):
        return None
    template: dict[str, Any] = {"metadata": {}, "spec": {}}
    for field, target in FRAGMENT_TARGETS.items():
        value = fragments.get(field)
        if value is not None:
            _put(template, target, value)
    containers: list[Any] = []
    listed = fragments.get("containersPath")
    if isinstance(listed, list):
        containers.extend(c for c in listed if isinstance(c, Mapping))
    single = fragments.get("containerPath")
    if isinstance(single, Mapping):
        containers.append(single)
    if not containers and (
        fragments.get("resourcesPath") is not None or fragments.get("imagePath") is not None
    ):
        synthetic: dict[str, Any] = {"name": "main"}
        if isinstance(fragments.get("resourcesPath"), Mapping):
            synthetic["resources"] = fragments["resourcesPath"]
        if isinstance(fragments.get("imagePath"), str):
            synthetic["image"] = fragments["imagePath"]
        containers.append(synthetic)
    if containers:
        template["spec"]["containers"] = containers
    return template


def _put(target: dict[str, Any], path: tuple[str, ...], value: Any) -> None:
    node = target
    for key in path[:-1]:
        node = node.setdefault(key, {})
    node[path[-1]] = value
