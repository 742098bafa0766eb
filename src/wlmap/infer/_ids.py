"""Instance ids: how the instances of a role in a list or a map are named."""

from __future__ import annotations

from wlmap.infer._components import Component
from wlmap.infer._evidence import Evidence, Strength
from wlmap.infer._schema import VALUES, Node, Path, jq_path, show

_NAME_FIELDS = ("name", "groupName", "roleName", "taskName", "type", "id")


def _instance_id(element: Node) -> tuple[str, Evidence] | None:
    """The name field of a list item: ``name`` first, then other naming fields."""
    required = set(element.schema.get("required") or ())
    props = element.properties
    candidates = [f for f in _NAME_FIELDS if f in props]
    candidates += [f for f in props if f.endswith("Name") and f not in candidates]
    for name in candidates:
        child = element.child(name)
        if child is None or child.type != "string":
            continue
        strength = Strength.SHAPE if name in required or name == "name" else Strength.GUESS
        reason = (
            "a required string naming each item"
            if name in required
            else "a string field naming each item"
        )
        if element.schema.get("x-kubernetes-list-map-keys") == [name]:
            strength, reason = Strength.SHAPE, "the list's map key"
        return name, Evidence("instanceIdPath", name, show(child.path), reason, strength)
    return None


def identify(comp: Component, element: Path, node: Node | None) -> None:
    """Set how the instances of ``comp`` are named: map keys, or the items' name field."""
    prefix = jq_path(element)
    if element[-1] == VALUES:
        coll = jq_path(element[:-1], optional=True)
        comp.instance_id_path = f"({coll} // {{}}) | keys_unsorted[]"
        comp.evidence.append(
            Evidence(
                "instanceIdPath",
                "map keys",
                show(element[:-1]),
                "a map of roles: each key names one",
                Strength.SHAPE,
            )
        )
    elif node is not None:
        found = _instance_id(node)
        if found is not None:
            name, ev = found
            comp.instance_id_path = (
                f"{prefix}.{name}" if name.isidentifier() else f'{prefix}["{name}"]'
            )
            comp.evidence.append(ev)
        else:
            comp.instance_id_path = (
                f'{jq_path(element[:-1], optional=False)} // [] | keys[] | "\\(.)"'
            )
            comp.evidence.append(
                Evidence(
                    "instanceIdPath",
                    "list index",
                    show(element),
                    "items have no name field; the index names them",
                    Strength.GUESS,
                )
            )
