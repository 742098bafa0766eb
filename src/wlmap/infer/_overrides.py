"""The workload's own pod fields that override a role of the object it names.

A TrainJob names a runtime that holds its pod templates, and its own ``trainer`` fields
(``numNodes``) override the runtime's trainer step. Which role such fields override is
what the referenced kind's samples show: the role whose object carries the fields' name
as a label value (a runtime labels its trainer step ``...ancestor-step: trainer``). That
role's pod count then reads the workload's own count first, and its template's when the
workload leaves it unset. Without such a sample, nothing is overridden (and the review
list says the fields are not applied).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from wlmap.infer._components import POD, Component
from wlmap.infer._counts import find_counts
from wlmap.infer._evidence import Evidence, Strength
from wlmap.infer._samples import values_at
from wlmap.infer._schema import ITEMS, VALUES, Node, Path, at, jq_path, show
from wlmap.infer._templates import Template

_MAX_DEPTH = 6  # labels sit near the role: on its template or its Job template


def _labelled(value: Any, word: str, rel: Path = ()) -> Iterator[Path]:
    """Paths below ``value`` of objects whose ``metadata.labels`` hold ``word``."""
    if not isinstance(value, Mapping) or len(rel) > _MAX_DEPTH:
        return
    metadata = value.get("metadata")
    labels = metadata.get("labels") if isinstance(metadata, Mapping) else None
    if isinstance(labels, Mapping) and word in labels.values():
        yield rel
    for key, child in value.items():
        if key != "metadata":
            yield from _labelled(child, word, (*rel, str(key)))


def _element(template: Template) -> Path | None:
    """The list or map element holding a role's template, or None for a lone role."""
    marks = [i for i, step in enumerate(template.path) if step in (ITEMS, VALUES)]
    return template.path[: marks[-1] + 1] if marks else None


def apply_overrides(
    spec: Node,
    own: Sequence[Template],
    template: Template,
    samples: Sequence[Mapping[str, Any]],
    components: Sequence[Component],
    prefix: str,
) -> None:
    """Let each of ``own`` (the workload's pod fields) with a count override the pod count
    of the role of ``template`` (read through ``prefix``) its name labels in ``samples``
    (the referenced kind's objects)."""
    element = _element(template)
    if element is None:
        return
    pods = [
        c
        for c in components
        if c.kind == POD
        and c.replicas_path
        and (c.template_path or "").endswith(jq_path(template.path))
    ]
    for fields in own:
        node = at(spec, fields.path)
        count = find_counts(node).replicas if node is not None else None
        if count is None or count.jq is not None:
            continue
        word = fields.path[-1]
        found = sorted(
            {
                rel
                for sample in samples
                for value in values_at(sample, element)
                for rel in _labelled(value, word)
            }
        )
        if not found:
            continue
        tests = " or ".join(
            f"({jq_path(rel, optional=False) if rel else ''}.metadata.labels // {{}}"
            f" | any(.[]; . == {json.dumps(word)}))"
            for rel in found
        )
        mine = jq_path((*fields.path, count.field), optional=False)
        for comp in pods:
            # Each role's count beside whether it is the one named: one of each per role.
            comp.replicas_path = (
                f". as $w | [[{comp.replicas_path}], [{prefix} | {jq_path(element)} | {tests}]]"
                f" | transpose[] | if .[1] then (($w | {mine}) // .[0]) else .[0] end"
            )
            comp.evidence.append(
                Evidence(
                    f"component {comp.name}: replicasPath",
                    f"{show((*fields.path, count.field))} first",
                    show(element),
                    f"the workload's own {show(fields.path)} is named like the role "
                    f"whose labels hold {word!r} in the referenced kind's samples "
                    f"({', '.join(show((*element, *r, 'metadata', 'labels')) for r in found)}): "
                    f"its {count.field} overrides that role's pods when set",
                    Strength.SAMPLE,
                )
            )
