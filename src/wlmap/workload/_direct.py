"""Direct readers for the commonest expression shapes: key chains through the object.

Most expressions of a definition only walk the object: ``.status.conditions``,
``.metadata.labels["ray.io/group"]``, ``.spec.replicatedJobs[]?.name``,
``.spec.replicatedJobs[]? | .replicas // 1``, and the status tests built from them
(:mod:`wlmap.workload._direct_logic`). For these a reader is generated once per
definition as one small Python function that reads the dicts directly, with no evaluator
in between; each expression gets its own function, so Python's per-call-site caches stay
specific to it.

Only trusted definitions get them (see ``compiled``). A direct reader covers the
ordinary case only: a dict, or null, at every step. Anything
else (indexing a string or an array, which is an error in jq; more outputs than the
engine's limit) hands the evaluation to the general reader, which gives jq's result or
error; evaluation is pure, so starting over is safe. Outputs are what the general reader
gives: shared with the object, integral floats as ints.
"""

from __future__ import annotations

from typing import Any

from wlmap import jq
from wlmap.jq import syntax as s
from wlmap.workload._direct_logic import logic_source
from wlmap.workload._direct_values import HELPERS

# A chain of plain keys (`.a.b["c"]`) over what it indexes.
_Chain = tuple[tuple[str, ...], s.Node]


def direct_reader(program: jq.Program, general: jq.Reader, max_outputs: int) -> jq.Reader | None:
    """A direct reader for ``program`` when it has one of the shapes above, else None.

    Args:
        program: a compiled program; only native programs without variables qualify.
        general: the program's ordinary reader, which the direct one falls back to.
        max_outputs: the engine's output limit (more outputs go to ``general``, which
            reports the limit).
    """
    if not program.native or program.variables:
        return None
    namespace: dict[str, Any] = {"general": general, "MAX": max_outputs, **HELPERS}
    try:
        source = _source(program.node) or logic_source(program.node)
        if source is None:
            return None
        for index, literal in enumerate(source[1]):
            namespace[f"L{index}"] = literal
        # the source holds keys as Python string literals (repr) and nothing else from
        # the definition; literals are passed by name
        exec(source[0], namespace)
    except (RecursionError, SyntaxError, MemoryError):  # nested too deeply for Python
        return None
    reader: jq.Reader = namespace["read"]
    return reader


def _chain(node: s.Node) -> _Chain:
    """The plain keys ending ``node``, outermost last, and the node they index."""
    keys: list[str] = []
    while (
        isinstance(node, s.Index)
        and not node.optional
        and isinstance(node.key, s.Literal)
        and isinstance(node.key.value, str)
    ):
        keys.append(node.key.value)
        node = node.target
    return tuple(reversed(keys)), node


def _source(node: s.Node) -> tuple[str, list[Any]] | None:
    """Python source of ``read(value, session=None)`` for a supported shape, and the
    literals it refers to as ``L0``, ``L1``..."""
    literals: list[Any] = []
    head, each = (node.left, node.right) if isinstance(node, s.Pipe) else (node, None)
    keys, base = _chain(head)
    if not (isinstance(base, s.Iterate) and base.optional):
        # `.a.b` or `.a.b // literal`: one output
        body = None if each is not None else _step(node, "x", literals)
        if body is None:
            return None
        lines = [
            "def read(value, session=None):",
            "    x = value",
            *body,
            "    return [int(x) if type(x) is float and x.is_integer() else x]",
        ]
        return "\n".join(lines) + "\n", literals
    # `.a.b[]?.c`, `.a.b[]? | .c // literal`: one output per element
    outer, root = _chain(base.target)
    inner = walk_lines("y", keys)
    if each is not None:
        rest = _step(each, "y", literals)
        if rest is None:
            return None
        inner += rest
    if not isinstance(root, s.Identity):
        return None
    lines = [
        "def read(value, session=None):",
        "    x = value",
        *walk_lines("x", outer),
        "    if type(x) is list:",
        "        items = x",
        "    elif type(x) is dict:",
        "        items = list(x.values())",
        "    else:",  # `[]?` gives nothing for anything else
        "        return []",
        "    if len(items) > MAX:",
        "        return general(value, session)",
        "    out = []",
        "    for y in items:",
        *("    " + line for line in inner),
        "        out.append(int(y) if type(y) is float and y.is_integer() else y)",
        "    return out",
    ]
    return "\n".join(lines) + "\n", literals


def _step(node: s.Node, name: str, literals: list[Any]) -> list[str] | None:
    """Lines giving ``name`` the one output of ``node`` applied to it: a key chain from
    ``.``, optionally followed by ``// literal``."""
    otherwise = None
    if isinstance(node, s.Alternative):
        if not isinstance(node.right, s.Literal):
            return None
        otherwise, node = node.right, node.left
    keys, root = _chain(node)
    if not keys or not isinstance(root, s.Identity):
        return None
    lines = walk_lines(name, keys)
    if otherwise is not None:  # jq's `//`: the right side when the left is null or false
        literals.append(otherwise.value)
        lines.append(f"    if {name} is None or {name} is False:")
        lines.append(f"        {name} = L{len(literals) - 1}")
    return lines


def walk_lines(
    name: str, keys: tuple[str, ...], otherwise: str = "return general(value, session)"
) -> list[str]:
    """Lines indexing ``name`` by each key: a dict gives its entry, null gives null,
    anything else runs ``otherwise`` (by default, hands the value to the general reader)."""
    lines = []
    for key in keys:
        lines += [
            f"    if type({name}) is dict:",
            f"        {name} = {name}.get({key!r})",
            f"    elif {name} is not None:",
            f"        {otherwise}",
        ]
    return lines
