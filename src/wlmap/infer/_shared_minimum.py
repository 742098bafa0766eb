"""A minimum on the spec over a list of roles: the whole workload's minimum, shared out.

A spec with a ``min``-named count (``minAvailable``) and no desired count of its own,
above one list of roles that each carry their count, holds the minimum of the whole
(the pods that must run for the workload to run, a gang's size), not of each role. The
roles' own minimums (a role without one needs its whole count) then add up to it: when
the whole asks for less than their sum, it is handed out to the roles in list order;
when it asks for more, the excess is handed out in the same order, each role up to its
count. Without a whole minimum (absent or 0) each role keeps its own. A guess.
"""

from __future__ import annotations

from collections.abc import Sequence

from wlmap.infer._components import Component
from wlmap.infer._counts import Count, find_counts
from wlmap.infer._evidence import Evidence, Strength
from wlmap.infer._schema import ITEMS, Node, at, jq_path, show


def _field(count: Count) -> str:
    return f".{count.field}" if count.field.isidentifier() else f'.["{count.field}"]'


def share_spec_minimum(spec: Node, components: Sequence[Component]) -> None:
    """Set the minimum of the roles of the one list below ``spec`` from ``spec``'s own."""
    whole = find_counts(spec)
    if whole.minimum is None or whole.replicas is not None:
        return
    elements = {c.element for c in components if c.element is not None and c.replicas_path}
    if len(elements) != 1:
        return
    element = next(iter(elements))
    node = at(spec, element) if element is not None else None
    if element is None or node is None or element[:-2] != spec.path or element[-1] != ITEMS:
        return
    own = find_counts(node)
    if own.replicas is None:
        return
    fallback = own.replicas.default if own.replicas.default is not None else 1
    replicas = f"({_field(own.replicas)} // {fallback})"
    minimum = f"({_field(own.minimum)} // {replicas})" if own.minimum else replicas
    expression = (
        f"[{jq_path(element)} | {{replicas: {replicas}, min: {minimum}}}] as $roles"
        " | ([$roles[].min] | add // 0) as $total"
        f" | (({jq_path((*spec.path, whole.minimum.field), optional=False)} // 0)"
        " | if . > 0 then . else $total end) as $whole"
        " | $roles | to_entries[]"
        " | ([$roles[:.key][].min] | add // 0) as $before"
        " | ([$roles[:.key][] | .replicas - .min] | add // 0) as $spare"
        " | .value"
        " | if $whole <= $total then ([.min, $whole - $before] | min)"
        " else .min + ([.replicas - .min, $whole - $total - $spare] | min) end"
        " | if . > 0 then . else 0 end"
    )
    where = show((*spec.path, whole.minimum.field))
    for comp in components:
        if comp.element == element and comp.replicas_path is not None:
            comp.min_replicas_path = expression
            comp.evidence.append(
                Evidence(
                    "minReplicasPath",
                    f"{where} shared over {show(element)}",
                    where,
                    "a minimum on the spec above one list of roles is the whole workload's",
                    Strength.GUESS,
                )
            )
