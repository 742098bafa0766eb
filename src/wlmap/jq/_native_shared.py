"""Sharing the results of repeated sub-expressions among programs run on one value.

A definition evaluates many programs on the same object, and those programs repeat the
same costly parts: the catalog's status matchers each scan ``.status.conditions`` with
``any(...)`` and sum the same arrays. A caller that evaluates several programs on one
value it does not change in between passes them one memo (``Env.memo``); each shareable
node then computes once per input value and the other programs reuse its result.

A shareable node has no free variables and contains a loop (an iteration, a reduction
or a call with arguments); only those that read the program's own input are marked,
since a node inside an iteration sees a new input at every step, and a pipe only when
its left side is not shared already. Results are keyed by
the node's structure and kept with the input they were computed from, so a node reached
with another input recomputes; evaluation is pure, so a reused result is exact.
"""

from __future__ import annotations

from wlmap.jq import syntax as s
from wlmap.jq._scope import free_variables

_CANDIDATES = (s.Call, s.Pipe, s.Reduce)
_LOOPS = (s.Iterate, s.RecurseAll, s.Reduce, s.Foreach)
# Nodes all of whose children are evaluated on the node's own input.
_SAME_INPUT = (
    s.And,
    s.Or,
    s.Alternative,
    s.Binary,
    s.Comma,
    s.Neg,
    s.If,
    s.ArrayCons,
    s.ObjectCons,
    s.ObjectEntry,
    s.StringInterp,
    s.Index,
    s.Slice,
    s.Iterate,
)


def shareable(root: s.Node) -> dict[int, str]:
    """The nodes of a program worth sharing, by ``id``, with the key of what they compute."""
    found: dict[int, str] = {}
    stack = [root]
    while stack:
        node = stack.pop()
        if _worth_sharing(node):
            found[id(node)] = repr(node)
        stack.extend(_on_same_input(node))
    return found


def _worth_sharing(node: s.Node) -> bool:
    if not isinstance(node, _CANDIDATES) or (isinstance(node, s.Call) and not node.args):
        return False
    if isinstance(node, s.Pipe) and _worth_sharing(node.left):
        return False  # its costly part is shared already (`any(...) | not`)
    loops = any(
        isinstance(part, _LOOPS) or (isinstance(part, s.Call) and part.args)
        for part in s.walk(node)
    )
    return loops and not free_variables(node)


def _on_same_input(node: s.Node) -> list[s.Node]:
    """The children evaluated on the same input as ``node``."""
    if isinstance(node, _SAME_INPUT):
        return list(node.children())
    if isinstance(node, s.Pipe):
        return [node.left]
    if isinstance(node, s.Try):
        return [node.body]
    if isinstance(node, s.Bind):
        return [node.source, node.body]
    if isinstance(node, s.Reduce):
        return [node.source, node.init]
    if isinstance(node, s.Call) and node.args and node.name in ("any", "all", "select"):
        return [node.args[0]] if len(node.args) == 2 or node.name == "select" else []
    return []
