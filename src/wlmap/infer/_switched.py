"""Bounds kept apart from their role, behind a switch: Spark's ``dynamicAllocation``.

Some kinds put a role's autoscaling next to the roles instead of inside one: an object on
the spec with a boolean ``enabled`` and integers named for the role's plural
(``minExecutors``, ``maxExecutors``, ``initialExecutors`` for the ``executor`` role).
While switched on, the role scales between the bounds and starts at the largest of its
own count, the initial count and the minimum (SparkApplication's CRD describes
``initialExecutors`` so: "the bigger of that and" ``executor.instances``); switched off,
the role's own count stands and there are no bounds. Guesses.
"""

from __future__ import annotations

from collections.abc import Sequence

from wlmap.infer._components import POD, Component
from wlmap.infer._evidence import Evidence, Strength
from wlmap.infer._schema import Node, jq_path, show


def _switches(spec: Node) -> list[tuple[Node, dict[str, Node]]]:
    """Objects on the spec with a boolean ``enabled`` and integer fields."""
    out = []
    for node in spec.children():
        enabled = node.child("enabled")
        if node.path == spec.path or enabled is None or enabled.type != "boolean":
            continue
        ints = {n.path[-1].lower(): n for n in node.children() if n.type == "integer"}
        if ints:
            out.append((node, ints))
    return out


def _named(ints: dict[str, Node], prefix: str, noun: str) -> str | None:
    """The jq path of ``<prefix><noun>s`` (or the singular) among ``ints``."""
    found = ints.get(f"{prefix}{noun}s") or ints.get(f"{prefix}{noun}")
    return jq_path(found.path, optional=False) if found is not None else None


def apply_switched_bounds(spec: Node, components: Sequence[Component]) -> None:
    """Bounds and a starting count for each pod role kept directly on the spec whose
    plural names the integers of a switched object beside it."""
    switches = _switches(spec)
    for comp in components:
        element = comp.element
        if comp.kind != POD or element is None or element[:-1] != spec.path:
            continue
        noun = element[-1].lower()
        for node, ints in switches:
            low, high, start = (_named(ints, p, noun) for p in ("min", "max", "initial"))
            if low is None and high is None:
                continue
            on = f"{jq_path(node.path, optional=False)}.enabled == true"
            if comp.replicas_path is not None and (start or low):
                starts = ", ".join(p for p in (start, low) if p)
                comp.replicas_path = (
                    f"if {on} then ([({comp.replicas_path}), {starts}]"
                    f" | map(select(. != null)) | max) else ({comp.replicas_path}) end"
                )
            if low is not None:
                comp.min_replicas_path = f"if {on} then ({low} // 0) else null end"
            if high is not None:
                comp.max_replicas_path = f"if {on} then {high} else null end"
            comp.evidence.append(
                Evidence(
                    f"component {comp.name}: bounds",
                    f"{show(node.path)} while enabled",
                    show(node.path),
                    f"a switch beside the roles with counts named for {noun!r}",
                    Strength.GUESS,
                )
            )
            break
