"""Count fields of the infer benchmark: which catalog counts a draft reads too."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from _infer_reach import out_of_reach
from _infer_values import Samples, holding_template, reads_a_field, same_values, values
from _jq_reads import norm as _norm

from wlmap.definitions import Definition
from wlmap.infer._schema import Node


def score_replicas(
    catalog: Definition,
    drafted: Sequence[Any],
    t_reads: Sequence[tuple[set[str], Any]],
    schema: Node,
    samples: Samples,
    score: Any,
) -> None:
    """Count fields: read by the draft too, or the same counts on the samples from the
    draft's component for the same template or instances (see _infer_values). A count
    that only tests its own template (``if <template> then 1 else 0 end``) is a constant
    and matches the draft's constant on that template."""
    count_reads = set().union(*(counts_of(c, schema) for c in drafted))
    for comp in catalog.components():
        scale = comp.scale_definition
        if scale is None or comp is catalog.root:
            continue
        path = template_of(comp)
        mine = [c for got, c in t_reads if path and got & _norm(path, schema)]
        mine += [
            c
            for c in drafted
            if comp.instance_id_path
            and same_values(comp.instance_id_path, c.instance_id_path, samples)
        ]
        unreachable = out_of_reach(catalog.name, "replicas", comp.name)
        want = counts_of(comp, schema) - (_norm(path, schema) if path else set())
        if want:
            by_path = bool(want & count_reads)
            by_value = not by_path and any(
                reads_a_field(_replicas_path(c))
                and same_values(scale.replicas_path, _replicas_path(c), samples)
                for c in mine
            )
            what = f"{comp.name} {short(scale.replicas_path)}"
            score.add(by_path or by_value, what, unreachable, by_value)
        elif scale.replicas_path is not None and path:
            holder = holding_template(path)
            same = any(
                _replicas_path(c) == scale.replicas_path
                or (
                    holder is not None
                    and values(scale.replicas_path, holder)
                    == values(_replicas_path(c), holder)
                    != []
                )
                for c in mine
            )
            score.add(same, f"{comp.name} constant {short(scale.replicas_path)}", unreachable)


def _replicas_path(comp: Any) -> str | None:
    scale = comp.scale_definition
    return scale.replicas_path if scale is not None else None


def template_of(comp: Any) -> str | None:
    spec = comp.spec_definition
    if spec is None:
        return None
    path: str | None = spec.pod_template_spec_path or spec.pod_spec_path
    return path


def counts_of(comp: Any, schema: Node) -> set[str]:
    scale = comp.scale_definition
    if scale is None:
        return set()
    return {
        p
        for e in (scale.replicas_path, scale.min_replicas_path, scale.max_replicas_path)
        for p in _norm(e, schema)
    }


def short(text: str | None) -> str:
    flat = " ".join((text or "").split())
    return flat if len(flat) <= 70 else flat[:67] + "..."
