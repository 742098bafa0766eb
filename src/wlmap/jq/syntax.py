"""The syntax tree of a jq program: one frozen dataclass per construct.

The parser builds these; the safety and path checks walk them; the native evaluator
compiles them. Sugar is kept where a check needs it (``.a`` is an :class:`Index` whose key
is a string :class:`Literal`, ``.a?`` wraps it in :class:`Try`) and removed where it does
not matter (``elif`` becomes a nested :class:`If`).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, fields
from typing import Any, TypeAlias


@dataclass(frozen=True)
class Node:
    """Base of every syntax tree node."""

    def children(self) -> Iterator[Node]:
        """Yield every direct child node (including those inside patterns and entries)."""
        for f in fields(self):
            yield from _nodes_in(getattr(self, f.name))


def _nodes_in(value: Any) -> Iterator[Node]:
    if isinstance(value, Node):
        yield value
    elif isinstance(value, tuple):
        for item in value:
            yield from _nodes_in(item)


def walk(node: Node) -> Iterator[Node]:
    """Yield ``node`` and every node below it, depth first."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(list(current.children())))


@dataclass(frozen=True)
class Identity(Node):
    """``.``"""


@dataclass(frozen=True)
class RecurseAll(Node):
    """``..`` (recursive descent)."""


@dataclass(frozen=True)
class Literal(Node):
    """A constant: null, boolean, number or string.

    ``text`` keeps the source spelling of a number, since jq preserves it when printing.
    """

    value: bool | int | float | str | None
    text: str | None = None


@dataclass(frozen=True)
class StringInterp(Node):
    """A string with interpolations, ``"a\\(.x)b"`` or ``@base64 "a\\(.x)"``.

    ``parts`` alternates literal text (``str``) and interpolated expressions.
    """

    parts: tuple[str | Node, ...]
    fmt: str | None = None


@dataclass(frozen=True)
class Format(Node):
    """A format used as a filter, ``@base64``."""

    name: str


@dataclass(frozen=True)
class Index(Node):
    """``target[key]``, also ``target.name`` and ``target."name"``.

    ``optional`` (``.a?``, ``.[k]?``) suppresses errors of this indexing only, not of
    ``target``.
    """

    target: Node
    key: Node
    optional: bool = False


@dataclass(frozen=True)
class Slice(Node):
    """``target[start:end]`` with either bound optional; ``optional`` as for Index."""

    target: Node
    start: Node | None
    end: Node | None
    optional: bool = False


@dataclass(frozen=True)
class Iterate(Node):
    """``target[]``; ``optional`` (``target[]?``) as for Index."""

    target: Node
    optional: bool = False


@dataclass(frozen=True)
class Try(Node):
    """``try body catch handler``; ``term?`` is a try without handler."""

    body: Node
    handler: Node | None = None


@dataclass(frozen=True)
class Pipe(Node):
    """``left | right``."""

    left: Node
    right: Node


@dataclass(frozen=True)
class Comma(Node):
    """``left, right``."""

    left: Node
    right: Node


@dataclass(frozen=True)
class Neg(Node):
    """``-operand``."""

    operand: Node


@dataclass(frozen=True)
class Binary(Node):
    """Arithmetic or comparison: ``op`` is one of ``+ - * / % == != < <= > >=``."""

    op: str
    left: Node
    right: Node


@dataclass(frozen=True)
class And(Node):
    """``left and right``."""

    left: Node
    right: Node


@dataclass(frozen=True)
class Or(Node):
    """``left or right``."""

    left: Node
    right: Node


@dataclass(frozen=True)
class Alternative(Node):
    """``left // right``."""

    left: Node
    right: Node


@dataclass(frozen=True)
class Assign(Node):
    """An assignment: ``op`` is one of ``= |= += -= *= /= %= //=``."""

    op: str
    target: Node
    value: Node


@dataclass(frozen=True)
class ArrayCons(Node):
    """``[body]``; ``body`` is None for ``[]``."""

    body: Node | None


@dataclass(frozen=True)
class ObjectEntry(Node):
    """One ``key: value`` of an object construction (shorthands are expanded)."""

    key: Node
    value: Node


@dataclass(frozen=True)
class ObjectCons(Node):
    """``{entries}``."""

    entries: tuple[ObjectEntry, ...]


@dataclass(frozen=True)
class If(Node):
    """``if cond then then_ else else_ end``; ``else_`` None means ``else . end``."""

    cond: Node
    then: Node
    else_: Node | None


@dataclass(frozen=True)
class Var(Node):
    """``$name`` (``name`` is stored without the dollar)."""

    name: str


@dataclass(frozen=True)
class Loc(Node):
    """``$__loc__``: the file and line of the program, as an object."""

    line: int


@dataclass(frozen=True)
class Call(Node):
    """A function call ``name`` or ``name(arg; ...)``."""

    name: str
    args: tuple[Node, ...] = ()


@dataclass(frozen=True)
class VarPattern(Node):
    """``$name`` in a destructuring pattern."""

    name: str


@dataclass(frozen=True)
class ArrayPattern(Node):
    """``[p0, p1, ...]`` in a destructuring pattern."""

    elements: tuple[Pattern, ...]


@dataclass(frozen=True)
class ObjectPatternEntry(Node):
    """One entry of an object pattern.

    ``{$a}`` has ``bind="a"`` and no key or value; ``{$a: p}`` binds the field and also
    matches ``p``; ``{key: p}`` matches ``p`` against ``.[key]``.
    """

    key: Node | None
    bind: str | None
    value: Pattern | None


@dataclass(frozen=True)
class ObjectPattern(Node):
    """``{...}`` in a destructuring pattern."""

    entries: tuple[ObjectPatternEntry, ...]


Pattern: TypeAlias = VarPattern | ArrayPattern | ObjectPattern


@dataclass(frozen=True)
class Bind(Node):
    """``source as $x | body``; several patterns mean ``?//`` alternatives."""

    source: Node
    patterns: tuple[Pattern, ...]
    body: Node


@dataclass(frozen=True)
class Reduce(Node):
    """``reduce source as pattern (init; update)``."""

    source: Node
    pattern: Pattern
    init: Node
    update: Node


@dataclass(frozen=True)
class Foreach(Node):
    """``foreach source as pattern (init; update; extract)``."""

    source: Node
    pattern: Pattern
    init: Node
    update: Node
    extract: Node | None


@dataclass(frozen=True)
class FuncDef(Node):
    """``def name(params): body; rest``; a ``$`` param keeps its dollar."""

    name: str
    params: tuple[str, ...]
    body: Node
    rest: Node


@dataclass(frozen=True)
class Label(Node):
    """``label $name | body``."""

    name: str
    body: Node


@dataclass(frozen=True)
class Break(Node):
    """``break $name``."""

    name: str


@dataclass(frozen=True)
class Directive(Node):
    """``import "path" as name;``, ``include "path";`` or ``module {...};`` before ``body``."""

    kind: str
    path: str | None
    alias: str | None
    meta: Node | None
    body: Node
