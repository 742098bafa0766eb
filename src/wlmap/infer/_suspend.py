"""Suspend: a boolean spec field that stops a workload natively, and how to write it."""

from __future__ import annotations

from wlmap.infer._evidence import Evidence, Strength
from wlmap.infer._schema import ITEMS, VALUES, Node, jq_path, show, walk
from wlmap.infer._templates import Template


def find_suspend(spec: Node, templates: list[Template]) -> tuple[str, Evidence] | None:
    """The shallowest boolean ``suspend`` (or ``suspended``) field outside the templates."""
    best: Node | None = None
    for node in walk(spec):
        if node.type != "boolean" or node.path[-1].lower() not in ("suspend", "suspended"):
            continue
        if ITEMS in node.path or VALUES in node.path:
            continue  # per-role flags do not suspend the whole workload
        if any(node.path[: len(t.path)] == t.path for t in templates):
            continue
        if best is None or len(node.path) < len(best.path):
            best = node
    if best is None:
        return None
    words = " ".join(best.description.split())[:80]
    reason = f"a boolean named {best.path[-1]!r}" + (f' described "{words}"' if words else "")
    return jq_path(best.path, optional=False), Evidence(
        "suspendDefinition",
        jq_path(best.path, optional=False),
        show(best.path),
        reason,
        Strength.VOCABULARY,
    )
