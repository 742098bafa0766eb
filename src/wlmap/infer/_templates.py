"""Finding pod templates by shape: PodTemplateSpec and PodSpec subtrees of a CRD's spec.

A PodSpec is an object whose ``containers`` is a list of objects with an ``image``: the
field name alone proves nothing, the shape around it does. A PodTemplateSpec is an
object whose ``spec`` is a PodSpec. Schemaless subtrees (preserved unknown fields) are
templates only when sample objects hold a pod template there; without samples, a
schemaless field whose name and description both speak of a pod template is offered as a
guess for review.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from wlmap.infer._evidence import Evidence, Strength
from wlmap.infer._samples import is_pod_spec, is_pod_template, sample_paths, values_at
from wlmap.infer._schema import ITEMS, VALUES, Node, Path, at, show, walk

# Fields that change templates defined elsewhere (patches, overrides) rather than define one.
_NOT_A_DEFINITION = re.compile(r"patch|override", re.IGNORECASE)
_POD_TEMPLATE_WORDS = re.compile(r"\bpod\b.*\btemplate\b|\bpod template\b", re.IGNORECASE | re.S)

Shape = Literal["template", "podSpec", "fragments"]


@dataclass(frozen=True)
class Template:
    """A place in the spec that describes pods."""

    path: Path
    shape: Shape
    evidence: Evidence
    fragments: Mapping[str, str] | None = None  # fragmentedPodSpecDefinition, relative jq


def _has_containers(node: Node) -> bool:
    containers = node.child("containers")
    if containers is None or containers.type != "array" or containers.items is None:
        return False
    item = containers.items.properties
    return "image" in item or "name" in item


def _from_schema(spec: Node) -> list[Template]:
    found: list[Template] = []
    for node in walk(spec):
        if any(_NOT_A_DEFINITION.search(step) for step in node.path):
            continue
        if not _has_containers(node):
            continue
        if any(node.path[: len(t.path)] == t.path for t in found):
            continue  # a PodSpec inside a template already found
        parent_path = node.path[:-1]
        if node.path[-1] == "spec" and len(parent_path) > 1:
            reason = "an object whose spec has containers with images (a PodTemplateSpec)"
            found.append(
                Template(
                    parent_path,
                    "template",
                    Evidence(
                        "pod template", show(parent_path), show(node.path), reason, Strength.SHAPE
                    ),
                )
            )
        else:
            reason = "containers with images right here (a PodSpec)"
            found.append(
                Template(
                    node.path,
                    "podSpec",
                    Evidence("pod spec", show(node.path), show(node.path), reason, Strength.SHAPE),
                )
            )
    return found


def _schemaless(spec: Node) -> list[Node]:
    return [n for n in walk(spec) if n.schemaless]


def _from_samples(
    spec: Node, samples: Sequence[Mapping[str, Any]], taken: list[Template]
) -> list[Template]:
    """Templates the samples hold below schemaless nodes (the schema cannot show them)."""
    found: list[Template] = []
    for node in _schemaless(spec):
        seen: dict[Path, tuple[Shape, int]] = {}
        for sample in samples:
            for value in values_at(sample, node.path):
                for rel, held in sample_paths(value):
                    shape: Shape | None = (
                        "template"
                        if is_pod_template(held)
                        else "podSpec"
                        if is_pod_spec(held)
                        else None
                    )
                    if shape is None:
                        continue
                    path = (*node.path, *rel)
                    if shape == "podSpec" and path[-1] == "spec":
                        continue  # the template above it is reported
                    old = seen.get(path)
                    seen[path] = (shape, (old[1] if old else 0) + 1)
        for path, (shape, n) in seen.items():
            if any(path[: len(t.path)] == t.path for t in (*taken, *found)):
                continue
            what = "pod templates" if shape == "template" else "pod specs"
            reason = f"schemaless in the CRD; {n} sample value(s) there are {what}"
            found.append(
                Template(
                    path,
                    shape,
                    Evidence("pod template", show(path), "samples", reason, Strength.SAMPLE),
                )
            )
    return found


def _guesses(spec: Node, taken: list[Template]) -> list[Template]:
    found: list[Template] = []
    for node in _schemaless(spec):
        if node.path == spec.path or any(
            node.path[: len(t.path)] == t.path for t in (*taken, *found)
        ):
            continue
        name = node.path[-1]
        described = node
        if name == "spec":
            described = at(spec, node.path[:-1]) or node
        field = described.path[-1].lower()
        if "template" not in field or "volume" in field or "claim" in field:
            continue
        if described.type not in ("object", ""):
            continue
        if not _POD_TEMPLATE_WORDS.search(described.description):
            continue
        path: Path = described.path
        reason = f"schemaless; its description says {_quote(described.description)}"
        found.append(
            Template(
                path,
                "template",
                Evidence("pod template", show(path), show(node.path), reason, Strength.GUESS),
            )
        )
    return found


def _quote(text: str) -> str:
    first = " ".join(text.split())[:90]
    return f'"{first}"'


def find_templates(spec: Node, samples: Sequence[Mapping[str, Any]] = ()) -> list[Template]:
    """Every pod template below ``spec`` (the schema node of ``.spec``), in schema order."""
    found = _from_schema(spec)
    found += _from_samples(spec, samples, found)
    found += _guesses(spec, found)
    return sorted(found, key=lambda t: _order(spec, t.path))


def _order(spec: Node, path: Path) -> list[int]:
    order = []
    node = spec
    for step in path[len(spec.path) :]:
        names = list(node.properties)
        order.append(names.index(step) if step in names else len(names))
        child = node.items if step == ITEMS else node.values if step == VALUES else node.child(step)
        if child is None:
            break
        node = child
    return order
