"""The facts an expression matcher decided on: the object's fields it reads, with values.

``wlmap describe`` shows them instead of the jq text (which ``explain`` keeps): a reader
sees ``.status.phase="Pending"``, not the expression that compared it.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from wlmap import jq
from wlmap.errors import WlmapError
from wlmap.jq import syntax as s

# Calls whose arguments read the same input as the call (``select(.a == 1)``).
_SAME_INPUT_CALLS = frozenset({"select", "not", "length", "test", "startswith", "endswith"})


@lru_cache(maxsize=512)
def fields_read(expression: str) -> tuple[tuple[str, ...], ...]:
    """The field paths (``("status", "phase")``) an expression reads from its input,
    longest first reported once; prefixes of longer paths are left out."""
    try:
        node = jq.parse(expression)
    except (WlmapError, RecursionError):
        return ()
    found: list[tuple[str, ...]] = []
    _collect(node, found)
    unique = list(dict.fromkeys(found))
    return tuple(p for p in unique if not any(len(q) > len(p) and q[: len(p)] == p for q in unique))


# Fields an expression reads: each as ``.a.b`` text with its keys.
Fields = tuple[tuple[str, tuple[str, ...]], ...]


def fields_named(expression: str) -> Fields:
    """The fields an expression reads (:func:`fields_read`), each with its ``.a.b`` text."""
    return tuple(("." + ".".join(path), path) for path in fields_read(expression))


def read_facts(fields: Fields, obj: Mapping[str, Any]) -> tuple[tuple[str, Any], ...]:
    """Each field (from :func:`fields_named`) with its value in ``obj``."""
    return tuple([(text, _value(obj, path)) for text, path in fields])


def _collect(node: s.Node, found: list[tuple[str, ...]]) -> None:
    chain = _chain(node)
    if chain:
        found.append(chain)
        return
    if isinstance(node, s.Binary | s.And | s.Or | s.Alternative):
        _collect(node.left, found)
        _collect(node.right, found)
    elif isinstance(node, s.Pipe):
        _collect(node.left, found)  # the right side reads what the left gives, not the object
    elif isinstance(node, s.Neg):
        _collect(node.operand, found)
    elif isinstance(node, s.Try):
        _collect(node.body, found)
    elif isinstance(node, s.Iterate):
        _collect(node.target, found)
    elif isinstance(node, s.If):
        for part in (node.cond, node.then, node.else_):
            if part is not None:
                _collect(part, found)
    elif isinstance(node, s.Call) and node.name in _SAME_INPUT_CALLS:
        for argument in node.args:
            _collect(argument, found)


def _chain(node: s.Node) -> tuple[str, ...] | None:
    """``.a.b["c"]`` as ``("a", "b", "c")``; None for anything else."""
    keys: list[str] = []
    while isinstance(node, s.Index):
        key = node.key
        if not isinstance(key, s.Literal) or not isinstance(key.value, str):
            return None
        keys.append(key.value)
        node = node.target
    if not isinstance(node, s.Identity) or not keys:
        return None
    return tuple(reversed(keys))


def _value(obj: Any, path: tuple[str, ...]) -> Any:
    for key in path:
        # plain dicts and null first: the abstract Mapping check costs several times more
        if type(obj) is not dict and (obj is None or not isinstance(obj, Mapping)):
            return None
        obj = obj.get(key)
    return obj
