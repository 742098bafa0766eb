"""Named roles: sibling fields of one object, each holding a role drafted alike.

Some kinds keep their roles as fixed fields of one object (``components.proxy``,
``components.dataNode``, ``components.queryNode``, each with its own image, resources and
replicas) instead of a list or a map. Where at least three such siblings were drafted
alike (the same template, pod-field and count paths but for the field's own name), they
are instances of one role: one component whose instances are the fields set on the
object, named by the field, in the schema's order. Two alike siblings stay apart (a
leader and a worker template share a shape and are still two roles).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from wlmap.infer._components import POD, Component
from wlmap.infer._evidence import Evidence, Strength
from wlmap.infer._role_parts import role_word
from wlmap.infer._schema import ITEMS, VALUES, Path, jq_path, show

_MIN_SIBLINGS = 3
_HOLE = "\x00"
_PLAIN = re.compile(r'[\w.?\[\]"]+')


def _field(step: str) -> str:
    return f".{step}" if step.isidentifier() else f'.["{step}"]'


def _expressions(comp: Component) -> list[str | None]:
    """Every path of ``comp`` that names its role's field, in a fixed order."""
    fragments = comp.fragments or {}
    return [
        comp.template_path,
        comp.pod_spec_path,
        comp.replicas_path,
        comp.min_replicas_path,
        comp.max_replicas_path,
        *(fragments[k] for k in sorted(fragments)),
    ]


def _generic(comp: Component, element: Path) -> tuple[str | None, ...]:
    """``comp``'s paths with its own field written as a hole: alike roles give equal ones."""
    own = re.compile(re.escape(jq_path(element)) + r"(?![\w\"\]])")
    return tuple(None if e is None else own.sub(_HOLE, e) for e in _expressions(comp))


def _fill(rest: str, instances: str) -> str:
    """A role's path relative to its own field, read from each instance in turn."""
    if not rest:
        return instances
    if rest.startswith(" | "):
        return instances + rest
    inner = f"{'.' if rest.startswith('[') else ''}{rest}"
    return f"{instances} | {inner if _PLAIN.fullmatch(inner) else f'({inner})'}"


def _candidate(comp: Component) -> bool:
    element = comp.element
    return (
        comp.kind == POD
        and comp.instance_id_path is None
        and comp.role_key is None
        and element is not None
        and len(element) >= 2
        and element[-1] not in (ITEMS, VALUES)
        and element[-1].isidentifier()
    )


def merge_named_roles(components: Sequence[Component], taken: set[str]) -> list[Component]:
    """``components`` with each set of alike sibling roles merged into one component."""
    groups: dict[tuple[str, Path, tuple[str, ...], tuple[str | None, ...]], list[Component]] = {}
    for comp in components:
        if _candidate(comp):
            assert comp.element is not None
            keys = tuple(sorted(comp.fragments or {}))
            key = (comp.owner, comp.element[:-1], keys, _generic(comp, comp.element))
            groups.setdefault(key, []).append(comp)
    merged: dict[int, Component] = {}
    dropped: set[int] = set()
    names = {c.name for c in components} | taken
    for (_, parent, _keys, generic), members in groups.items():
        if len(members) < _MIN_SIBLINGS or any(
            e is not None and (not e.startswith(_HOLE) or e.count(_HOLE) != 1) for e in generic
        ):
            continue
        role = _merge(members, parent, generic, names)
        names.add(role.name)
        merged[id(members[0])] = role
        dropped |= {id(c) for c in members[1:]}
    return [merged.get(id(c), c) for c in components if id(c) not in dropped]


def _merge(
    members: Sequence[Component], parent: Path, generic: tuple[str | None, ...], names: set[str]
) -> Component:
    fields = [c.element[-1] for c in members if c.element is not None]
    instances = f"{jq_path(parent)} | ({', '.join(_field(f) for f in fields)}) | select(. != null)"
    word = role_word(parent[-1]) if parent and parent[-1] not in (ITEMS, VALUES) else "role"
    name = word or "role"
    n = 2
    while name in names - {c.name for c in members}:
        name, n = f"{word}{n}", n + 1
    first = members[0]
    fill = [None if e is None else _fill(e[1:], instances) for e in generic]
    comp = Component(name, first.owner, kind=POD, element=(*parent, fields[0]))
    comp.template_path, comp.pod_spec_path = fill[0], fill[1]
    comp.replicas_path, comp.min_replicas_path, comp.max_replicas_path = fill[2:5]
    if first.fragments:
        comp.fragments = {
            k: e for k, e in zip(sorted(first.fragments), fill[5:], strict=True) if e is not None
        }
    listed = ", ".join(f'"{f}"' for f in fields)
    comp.instance_id_path = f"{jq_path(parent)} as $c | ({listed}) | select($c[.] != null)"
    # The first sibling's evidence, its field written as any of them.
    own, each_field = show((*parent, fields[0])), show((*parent, "<field>"))
    comp.evidence = [
        replace(
            e, source=e.source.replace(own, each_field), choice=e.choice.replace(own, each_field)
        )
        for e in first.evidence
        if not e.subject.startswith("component ")
    ]
    comp.evidence.append(
        Evidence(
            f"component {name}",
            f"instances {', '.join(fields)}",
            show(parent),
            f"{len(fields)} sibling fields hold a role drafted alike but for its name: "
            "one role, each field set on the object an instance named by the field",
            Strength.SHAPE,
        )
    )
    return comp
