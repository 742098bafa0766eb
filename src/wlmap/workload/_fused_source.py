"""One loop for all the columns of a component whose instances are a list's elements.

Most named components read every column from the elements of one list:
``.spec.replicatedJobs[]?.name`` for the ids, ``.spec.replicatedJobs[]?.template.spec.template``
for the templates, ``.spec.replicatedJobs[]? | .replicas // 1`` for the counts. Read one
expression at a time, each walks to the list, iterates it and builds a list of its own,
and the lists are then zipped. When the ids and every column iterate the same list and
each reads its element with a step the direct readers write out (key chains, ``//``,
tests, ``[a, b] | min``...), the component's instances are read in one pass instead: one
walk to the list, one loop, each element's values computed in place and its
``(id, template, scale)`` tuple appended.

The pass gives the same instances as the column readers, or raises (``Unusual``, or
``Fallback`` from a step) where they would report or convert something, so that the
caller reads the object the general way. A component of any other shape keeps the
column readers.
"""

from __future__ import annotations

from typing import Any

from wlmap.jq import syntax as s
from wlmap.workload._direct import walk_lines
from wlmap.workload._direct_logic import Emitter, Unsupported
from wlmap.workload.compiled import Expr
from wlmap.workload.structure import ComponentPlan


class FusedLines:
    """The in-place reads of one generated function. Temporaries and literals are
    numbered across all its components, so they never clash, and a key read at the top
    level is read once for every component after it."""

    def __init__(self) -> None:
        self.top = Emitter()  # the function's top level: its reads hold on every path

    def alone(self, index: int, plan: ComponentPlan) -> list[str] | None:
        """Lines setting ``c<index>`` to the one instance of a component without ids,
        its columns computed in place; None when one of them is not of a shape the
        direct readers write out."""
        columns = _columns(plan)
        if columns is None or plan.ids is not None:
            return None
        top = self.top
        saved = (top.count, len(top.literals), dict(top.known), set(top.bools))
        out: dict[str, str] = {}
        try:
            for name, expr in columns.items():
                out[name] = "None" if expr is None else top.value(expr.program.node, "obj", 1)
        except (Unsupported, RecursionError):
            top.count, top.known, top.bools = saved[0], saved[2], saved[3]
            del top.literals[saved[1] :]
            top.lines.clear()
            return None
        lines, top.lines = top.lines, []
        return [*lines, f"    c{index} = [(None, {_template(plan, out)}, {_scale(plan, out)})]"]

    def elements(self, index: int, plan: ComponentPlan, max_outputs: int) -> list[str] | None:
        """Lines setting ``c<index>`` to the component's instances, or None when its
        columns are not all read from the elements of one list."""
        columns = _columns(plan)
        if columns is None or plan.ids is None or max_outputs <= 0:
            return None
        exprs = [plan.ids, *(e for e in columns.values() if e is not None)]
        split = [_element_step(e) for e in exprs]
        if any(p is None for p in split) or len({p[0] for p in split if p}) != 1:
            return None
        keys = split[0][0] if split[0] else ()
        steps = {id(e): p[1] for e, p in zip(exprs, split, strict=True) if p}
        emitter = Emitter()  # the loop's reads hold for one element only
        emitter.count, emitter.literals = self.top.count, list(self.top.literals)
        item = f"y{index}"
        out: dict[str, str] = {}
        try:
            emitter.loop()  # the element loop: a step may not loop again
            for name, expr in (("id", plan.ids), *columns.items()):
                out[name] = "None" if expr is None else emitter.value(steps[id(expr)], item, 2)
        except (Unsupported, RecursionError):
            return None
        self.top.count, self.top.literals = emitter.count, emitter.literals
        return [
            "    e = obj",
            *walk_lines("e", keys, "raise Unusual"),
            "    if type(e) is list:",
            "        it = e",
            "    elif type(e) is dict:",
            "        it = list(e.values())",
            "    else:",  # `[]?` gives nothing for anything else
            "        it = ()",
            f"    if len(it) > {max_outputs}:",
            "        raise Unusual",  # the general reader reports the output limit
            f"    c{index} = []",
            f"    for {item} in it:",
            *emitter.lines,
            f"        if type({out['id']}) is not str or not {out['id']}:",
            "            raise Unusual",
            f"        c{index}.append(({out['id']}, {_template(plan, out)}, {_scale(plan, out)}))",
        ]

    def names(self) -> dict[str, Any]:
        """The literals the lines refer to, by name."""
        return {f"L{i}": value for i, value in enumerate(self.top.literals)}


def _columns(plan: ComponentPlan) -> dict[str, Expr | None] | None:
    """The component's template and count columns by role, None for a shape kept apart."""
    spec = "specDefinition."
    found: dict[str, Expr | None] = {}
    if plan.spec_shape == "template":
        found["template"] = plan.fields[spec + "podTemplateSpecPath"]
    elif plan.spec_shape == "pod spec":
        found["spec"] = plan.fields[spec + "podSpecPath"]
        found["metadata"] = plan.fields[spec + "metadataPath"]
    elif plan.spec_shape is not None:  # fragments: several columns per template
        return None
    if plan.scale is not None:
        found["replicas"], found["min"], found["max"] = plan.scale
    if not all(e is None or e.direct for e in found.values()):
        return None
    return found


def _template(plan: ComponentPlan, out: dict[str, str]) -> str:
    if plan.spec_shape == "template":
        return f"from_template({out['template']})"
    if plan.spec_shape == "pod spec":
        return f"from_pod_spec({out['spec']}, {out['metadata']})"
    return "None"


def _scale(plan: ComponentPlan, out: dict[str, str]) -> str:
    if plan.scale is None:
        return "NO_SCALE"
    if out["min"] == "None" and out["max"] == "None":
        return f"replicas_only({out['replicas']})"
    return f"bounded({out['replicas']}, {out['min']}, {out['max']})"


def _element_step(expr: Expr) -> tuple[tuple[str, ...], s.Node] | None:
    """For ``.a.b[]? ...``: the keys to the list and what is read of each element (the
    expression with the iteration replaced by ``.``); None for any other shape."""
    if not expr.direct:
        return None
    whole: s.Node = expr.program.node
    node, rest = (whole.left, whole.right) if isinstance(whole, s.Pipe) else (whole, None)
    keys: list[str] = []
    while _plain(node) and isinstance(node, s.Index):
        keys.append(node.key.value)  # type: ignore[attr-defined]  # _plain checked it
        node = node.target
    if not (isinstance(node, s.Iterate) and node.optional):
        return None
    outer: list[str] = []
    target = node.target
    while _plain(target) and isinstance(target, s.Index):
        outer.append(target.key.value)  # type: ignore[attr-defined]  # _plain checked it
        target = target.target
    if not isinstance(target, s.Identity) or not outer:
        return None
    step: s.Node = s.Identity()
    for key in reversed(keys):
        step = s.Index(step, s.Literal(key))
    if rest is not None:
        step = rest if not keys else s.Pipe(step, rest)
    return tuple(reversed(outer)), step


def _plain(node: s.Node) -> bool:
    """A key step ``.key`` (not optional, a string literal key)."""
    return (
        isinstance(node, s.Index)
        and not node.optional
        and isinstance(node.key, s.Literal)
        and isinstance(node.key.value, str)
    )
