"""Suspend: a spec field that stops a workload natively, and how to write it.

Three shapes ask for a stop: a boolean ``suspend`` (or ``suspended``); a string enum
whose values name a suspended state and an active one (``mode: Running|Suspended``, a
running mode: no pods while it says suspended); an
integer replica count allowed only 0 or 1, where 0 is the stop (an on/off switch). The
shallowest of them outside templates and roles is the workload's.
"""

from __future__ import annotations

from dataclasses import dataclass

from wlmap.definitions.status import GenericStatus
from wlmap.infer._counts import find_counts
from wlmap.infer._evidence import Evidence, Strength
from wlmap.infer._schema import ITEMS, VALUES, Node, jq_path, show, walk
from wlmap.infer._templates import Template
from wlmap.infer._vocabulary import classify


@dataclass(frozen=True)
class Suspend:
    """How the draft asks for a stop: ``asked`` is jq that is true while it is asked."""

    asked: str
    path: str
    on: str
    off: str
    evidence: Evidence
    stops_pods: bool = False  # a running mode: while it says suspended, no pods run


def _enum_switch(node: Node) -> tuple[str, str] | None:
    """The suspended and the active value of a string enum, if it has both."""
    values = [str(v) for v in node.schema.get("enum") or ()]
    states = {v: found[0] for v in values if (found := classify(v)) is not None}
    stop = next((v for v, s in states.items() if s is GenericStatus.SUSPENDED), None)
    run = next((v for v, s in states.items() if s is GenericStatus.RUNNING), None)
    return (stop, run) if stop is not None and run is not None else None


def _on_off(node: Node) -> bool:
    """An integer replica count that can only be 0 or 1."""
    return (
        node.type == "integer"
        and node.schema.get("minimum") == 0
        and node.schema.get("maximum") == 1
        and find_counts(Node(node.path[:-1], {"properties": {node.path[-1]: node.schema}})).replicas
        is not None
    )


def _suspend(node: Node) -> Suspend | None:
    path = jq_path(node.path, optional=False)
    name = node.path[-1]
    if node.type == "boolean" and name.lower() in ("suspend", "suspended"):
        words = " ".join(node.description.split())[:80]
        reason = f"a boolean named {name!r}" + (f' described "{words}"' if words else "")
        evidence = Evidence("suspendDefinition", path, show(node.path), reason, Strength.VOCABULARY)
        return Suspend(path, path, "true", "false", evidence)
    if node.type == "string" and (switch := _enum_switch(node)) is not None:
        stop, run = switch
        reason = f"an enum of {stop!r} and {run!r}"
        evidence = Evidence("suspendDefinition", path, show(node.path), reason, Strength.GUESS)
        asked = f'({path} == "{stop}")'
        return Suspend(asked, path, f'"{stop}"', f'"{run}"', evidence, stops_pods=True)
    if _on_off(node):
        default = node.schema.get("default", 1)
        reason = f"a replica count {name!r} allowed 0 or 1: 0 stops the workload"
        evidence = Evidence("suspendDefinition", path, show(node.path), reason, Strength.GUESS)
        return Suspend(f"(({path} // {default}) == 0)", path, "0", "1", evidence)
    return None


def find_suspend(spec: Node, templates: list[Template]) -> Suspend | None:
    """The shallowest suspend field outside the templates and roles."""
    best: tuple[Node, Suspend] | None = None
    for node in walk(spec):
        if ITEMS in node.path or VALUES in node.path:
            continue  # per-role flags do not suspend the whole workload
        if any(node.path[: len(t.path)] == t.path for t in templates):
            continue
        found = _suspend(node)
        if found is not None and (best is None or len(node.path) < len(best[0].path)):
            best = (node, found)
    return best[1] if best is not None else None


def stopped_counts(suspend: Suspend, replicas: str) -> str:
    """A top-level count under a running mode: none while the mode says suspended."""
    return f"if {suspend.asked} then 0 else ({replicas}) end"
