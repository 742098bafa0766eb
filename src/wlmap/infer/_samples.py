"""Sample objects: the values they hold at a schema path, and where schemaless parts are."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from wlmap.infer._schema import ITEMS, VALUES, Node, Path


def of_kind(samples: Sequence[Mapping[str, Any]], group: str, kind: str) -> list[Mapping[str, Any]]:
    """The samples of one kind (by kind and the group of their apiVersion)."""
    return [
        s
        for s in samples
        if s.get("kind") == kind and str(s.get("apiVersion", "")).split("/")[0] == group
    ]


def values_at(obj: Any, path: Path) -> Iterator[Any]:
    """Every value an object holds at ``path`` (arrays and maps fan out)."""
    if not path:
        yield obj
        return
    step, rest = path[0], path[1:]
    if step == ITEMS:
        if isinstance(obj, list):
            for item in obj:
                yield from values_at(item, rest)
    elif step == VALUES:
        if isinstance(obj, Mapping):
            for value in obj.values():
                yield from values_at(value, rest)
    elif isinstance(obj, Mapping) and step in obj:
        yield from values_at(obj[step], rest)


def keys_at(samples: Sequence[Mapping[str, Any]], path: Path) -> list[str]:
    """The map keys the samples use at ``path`` (a map node), in first-seen order."""
    keys: list[str] = []
    for sample in samples:
        for value in values_at(sample, path):
            if isinstance(value, Mapping):
                keys.extend(k for k in value if k not in keys)
    return keys


def is_pod_spec(value: Any) -> bool:
    """A value shaped like a PodSpec: a list of containers with images."""
    if not isinstance(value, Mapping):
        return False
    containers = value.get("containers")
    return (
        isinstance(containers, list)
        and bool(containers)
        and all(isinstance(c, Mapping) and ("image" in c or "name" in c) for c in containers)
    )


def is_pod_template(value: Any) -> bool:
    """A value shaped like a PodTemplateSpec: a ``spec`` that is a PodSpec."""
    return isinstance(value, Mapping) and is_pod_spec(value.get("spec"))


def sample_paths(obj: Any, path: Path = ()) -> Iterator[tuple[Path, Any]]:
    """Every (path, value) of a sample object, arrays as ``ITEMS`` (maps keep their keys)."""
    yield path, obj
    if isinstance(obj, Mapping):
        for key, value in obj.items():
            yield from sample_paths(value, (*path, str(key)))
    elif isinstance(obj, list):
        for item in obj:
            yield from sample_paths(item, (*path, ITEMS))


def sample_node(samples: Sequence[Mapping[str, Any]], path: Path) -> Node | None:
    """A schema node for ``path`` built from what the samples hold there (integers,
    strings and objects), for parts the CRD leaves schemaless; None when they hold none."""
    props: dict[str, Any] = {}
    for sample in samples:
        for value in values_at(sample, path):
            if not isinstance(value, Mapping):
                continue
            for key, held in value.items():
                if isinstance(held, bool):
                    continue
                if isinstance(held, int):
                    props.setdefault(key, {"type": "integer"})
                elif isinstance(held, str):
                    props.setdefault(key, {"type": "string"})
                elif isinstance(held, Mapping):
                    props.setdefault(key, {"type": "object"})
    return Node(path, {"type": "object", "properties": props}) if props else None
