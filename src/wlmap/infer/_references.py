"""Pods a workload takes from an object of another kind it names: a runtime, a template.

Some kinds hold no pod template of their own. A TrainJob names a ClusterTrainingRuntime
(``spec.runtimeRef``), and the runtime's spec holds the JobSet template its pods come
from. A reference is an object with a string ``name`` and a string ``kind`` whose value
is known: its default, its enum, or what the samples hold there. A group field beside it
(``apiGroup`` or ``group``) narrows the kind. When the
CRD of a kind named so is given and its spec holds pod templates, the draft reads them
through ``$<reference>``: the caller fetches that object and passes it in.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from wlmap.infer._components import Component
from wlmap.infer._evidence import Evidence, Strength
from wlmap.infer._overrides import apply_overrides
from wlmap.infer._roles import plan_roles
from wlmap.infer._samples import of_kind, values_at
from wlmap.infer._schema import ITEMS, VALUES, Node, Path, jq_path, show, version_schema, walk
from wlmap.infer._templates import Template, find_templates

_GROUP_FIELDS = ("apiGroup", "group")
_PATHS = (
    "template_path",
    "pod_spec_path",
    "instance_id_path",
    "replicas_path",
    "min_replicas_path",
    "max_replicas_path",
)


@dataclass(frozen=True)
class Reference:
    """A field of the workload naming an object of a kind whose CRD was given."""

    path: Path  # the reference object, e.g. .spec.runtimeRef
    kind: str
    group: str
    version: str  # the referenced CRD's storage version
    namespaced: bool
    default: bool  # the kind is the field's default: an absent kind names it too
    group_field: str | None  # the group field beside name and kind, if any
    spec: Node  # the referenced kind's .spec schema
    templates: tuple[Template, ...]
    evidence: Evidence

    @property
    def name(self) -> str:
        """``$<name>`` in the draft's expressions: the kind in lower camel case."""
        return _lower_camel(self.kind)

    def entry(self) -> dict[str, Any]:
        """The definition's ``references`` item."""
        field = jq_path(self.path, optional=False)
        kind = f"{field}.kind"
        tests = [
            f"({kind} // {json.dumps(self.kind)}) == {json.dumps(self.kind)}"
            if self.default
            else f"{kind} == {json.dumps(self.kind)}"
        ]
        if self.group_field is not None:
            group = json.dumps(self.group)
            tests.append(f"({field}.{self.group_field} // {group}) == {group}")
        out: dict[str, Any] = {
            "name": self.name,
            "kind": {"group": self.group, "version": self.version, "kind": self.kind},
            "nameExpression": f"if {' and '.join(tests)} then {field}.name else empty end",
        }
        if self.namespaced:
            out["namespaceExpression"] = ".metadata.namespace"
        return out


def _lower_camel(kind: str) -> str:
    return kind[:1].lower() + kind[1:]


def _crds_by_kind(known: Sequence[Mapping[str, Any]]) -> dict[str, list[Mapping[str, Any]]]:
    out: dict[str, list[Mapping[str, Any]]] = {}
    for crd in known:
        if not isinstance(crd, Mapping) or crd.get("kind") != "CustomResourceDefinition":
            continue
        kind = str(((crd.get("spec") or {}).get("names") or {}).get("kind") or "")
        out.setdefault(kind, []).append(crd)
    return out


def _strings(node: Node | None, key: str) -> list[str]:
    if node is None or node.type not in ("string", ""):
        return []
    found = node.schema.get(key)
    if key == "default":
        return [found] if isinstance(found, str) and found else []
    return [v for v in found or () if isinstance(v, str) and v]


def _groups(
    node: Node, group_field: str | None, samples: Sequence[Mapping[str, Any]]
) -> set[str] | None:
    """The groups a reference's group field names (its default, "" for the core group,
    and the samples' values), or None when it has no group field (any group)."""
    if group_field is None:
        return None
    field = node.child(group_field)
    found = set()
    if field is not None and isinstance(field.schema.get("default"), str):
        found.add(field.schema["default"])
    for sample in samples:
        found.update(v for v in values_at(sample, (*node.path, group_field)) if isinstance(v, str))
    return found


def _named_kinds(node: Node, samples: Sequence[Mapping[str, Any]]) -> list[tuple[str, str, bool]]:
    """The kinds a reference field names: (kind, where it is known, is it the default)."""
    kind = node.child("kind")
    out = [(k, "its default", True) for k in _strings(kind, "default")]
    out += [(k, "its enum", False) for k in _strings(kind, "enum")]
    for sample in samples:
        for value in values_at(sample, (*node.path, "kind")):
            if isinstance(value, str) and value:
                out.append((value, "the samples", False))
    first: dict[str, tuple[str, str, bool]] = {}
    for named in out:
        first.setdefault(named[0], named)
    return list(first.values())


def _named(
    spec: Node, samples: Sequence[Mapping[str, Any]]
) -> Iterator[tuple[Node, str | None, set[str] | None, list[tuple[str, str, bool]]]]:
    """Each reference field: its node, its group field, the groups and kinds it names."""
    for node in _reference_nodes(spec):
        group_field = next((f for f in _GROUP_FIELDS if node.child(f) is not None), None)
        yield node, group_field, _groups(node, group_field, samples), _named_kinds(node, samples)


def candidate_kinds(
    crd: Mapping[str, Any], version: str | None, samples: Sequence[Mapping[str, Any]] = ()
) -> list[tuple[str, str | None]]:
    """(kind, group or None) of every object the kind's spec names by reference, for a
    caller that fetches those kinds' CRDs (a live cluster)."""
    _, schema = version_schema(crd, version)
    spec = schema.child("spec")
    out: list[tuple[str, str | None]] = []
    for _, _, groups, kinds in _named(spec, samples) if spec is not None else ():
        for kind, _, _ in kinds:
            out += [(kind, g) for g in sorted(groups)] if groups is not None else [(kind, None)]
    return list(dict.fromkeys(out))


def _reference_nodes(spec: Node) -> list[Node]:
    """Objects with a string ``name`` and a string ``kind``, outside lists and maps: one
    object per workload (a volume's data source, in a pod's list of volumes, is not)."""
    out = []
    for node in walk(spec):
        if ITEMS in node.path or VALUES in node.path or node.type != "object":
            continue
        name, kind = node.child("name"), node.child("kind")
        if name is None or kind is None or name.type != "string" or kind.type != "string":
            continue
        out.append(node)
    return out


def find_references(
    spec: Node,
    samples: Sequence[Mapping[str, Any]],
    known: Sequence[Mapping[str, Any]],
) -> list[Reference]:
    """The references of ``spec`` to a kind whose CRD is in ``known`` and whose spec holds
    pod templates (found by shape, or in that kind's samples)."""
    by_kind = _crds_by_kind(known)
    out: list[Reference] = []
    for node, group_field, groups, kinds in _named(spec, samples):
        for kind, where, default in kinds:
            for crd in by_kind.get(kind, ()):
                found = _referenced(node, (kind, where, default), crd, samples, group_field)
                if found is not None and (groups is None or found.group in groups):
                    out.append(found)
    return out


def _referenced(
    node: Node,
    named: tuple[str, str, bool],
    crd: Mapping[str, Any],
    samples: Sequence[Mapping[str, Any]],
    group_field: str | None,
) -> Reference | None:
    kind, where, default = named
    spec = crd.get("spec") or {}
    group = str(spec.get("group") or "")
    version, schema = version_schema(crd, None)
    theirs = schema.child("spec")
    if theirs is None:
        return None
    templates = tuple(
        t for t in find_templates(theirs, of_kind(samples, group, kind)) if t.shape != "fragments"
    )
    if not templates:
        return None
    reason = (
        f"an object reference (name, kind) naming {kind} ({where}); the given CRD of "
        f"{kind}.{group} holds pod templates at " + ", ".join(show(t.path) for t in templates)
    )
    return Reference(
        path=node.path,
        kind=kind,
        group=group,
        version=version,
        namespaced=spec.get("scope", "Namespaced") == "Namespaced",
        default=default,
        group_field=group_field,
        spec=theirs,
        templates=templates,
        evidence=Evidence(
            "reference",
            f"${_lower_camel(kind)}",
            show(node.path),
            reason,
            Strength.SAMPLE if where == "the samples" else Strength.SHAPE,
        ),
    )


def plan_through(
    root: str,
    spec: Node,
    samples: Sequence[Mapping[str, Any]],
    known: Sequence[Mapping[str, Any]],
    own: Sequence[Template] = (),
) -> tuple[list[Reference], list[Component]] | None:
    """The roles of the first referenced kind with pod templates, read through the
    reference, or None. Kinds named by the same field whose templates sit at the same
    paths (a namespaced runtime and a cluster-wide one) are read as alternatives. The
    workload's ``own`` pod fields override the count of the role they name (see
    _overrides)."""
    found = find_references(spec, samples, known)
    if not found:
        return None
    first = found[0]
    shape = [t.path for t in first.templates]
    chosen = [first] + [
        r for r in found[1:] if r.path == first.path and [t.path for t in r.templates] == shape
    ]
    theirs = of_kind(samples, first.group, first.kind)
    components = plan_roles(root, first.spec, first.templates, theirs)
    names = [f"${r.name}" for r in chosen]
    prefix = names[0] if len(names) == 1 else f"({' // '.join(names)})"
    for comp in components:
        for attr in _PATHS:
            value = getattr(comp, attr)
            if value and "." in value:
                setattr(comp, attr, f"{prefix} | {value}")
    for template in first.templates:
        apply_overrides(spec, own, template, theirs, components, prefix)
    return chosen, components
