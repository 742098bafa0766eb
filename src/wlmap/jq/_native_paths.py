"""Native evaluation of ``[path(EXPR)]`` for simple path expressions.

Each compiled step maps one ``(path, value)`` pair to the pairs it leads to. Supported:
``.``, ``.a``/``.[k]`` with a single-output key, ``.[]``, ``?``, ``|``, ``,``,
``select(c)`` and ``empty``; anything else returns None and libjq computes the paths.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from wlmap.jq import syntax as s
from wlmap.jq._builtins import index_value, iterate
from wlmap.jq._native import Compiler
from wlmap.jq._native_base import Env, NotNative
from wlmap.jq._values import JqError, truthy

Pair = tuple[tuple[Any, ...], Any]
Step = Callable[[Pair, Any, Env], Iterator[Pair]]


def compile_paths(node: s.Node, variables: frozenset[str]) -> Step | None:
    """Compile ``node`` as a path expression, or None when it is outside the subset."""
    try:
        return _PathCompiler(variables).step(node)
    except (NotNative, RecursionError):
        return None


def run_paths(step: Step, value: Any, env: Env) -> list[list[Any]]:
    """All paths ``step`` produces from ``value``, as lists."""
    return [list(path) for path, _ in step(((), value), value, env)]


class _PathCompiler:
    def __init__(self, variables: frozenset[str]) -> None:
        self.scope = variables
        self.values = Compiler()

    def step(self, node: s.Node) -> Step:
        if isinstance(node, s.Identity):
            return lambda pair, dot, e: iter((pair,))
        if isinstance(node, s.Index):
            return self.index(node)
        if isinstance(node, s.Iterate):
            return self.iterate(node)
        if isinstance(node, s.Pipe):
            left, right = self.step(node.left), self.step(node.right)

            def piped(pair: Pair, dot: Any, e: Env) -> Iterator[Pair]:
                for middle in left(pair, dot, e):
                    e.ctl.tick()
                    yield from right(middle, middle[1], e)

            return piped
        if isinstance(node, s.Comma):
            first, second = self.step(node.left), self.step(node.right)

            def both(pair: Pair, dot: Any, e: Env) -> Iterator[Pair]:
                yield from first(pair, dot, e)
                yield from second(pair, dot, e)

            return both
        if isinstance(node, s.Try) and node.handler is None:
            body = self.step(node.body)

            def optional(pair: Pair, dot: Any, e: Env) -> Iterator[Pair]:
                try:
                    yield from body(pair, dot, e)
                except JqError:
                    return

            return optional
        if isinstance(node, s.Call):
            return self.call(node)
        raise NotNative(type(node).__name__)

    def index(self, node: s.Index) -> Step:
        target = self.step(node.target)
        key = self.values.compile(node.key, self.scope).one
        if key is None:
            raise NotNative("multi-output key")
        kone = key

        optional = node.optional

        def indexed(pair: Pair, dot: Any, e: Env) -> Iterator[Pair]:
            k = kone(dot, e)
            for path, value in target(pair, dot, e):
                try:
                    found = index_value(value, k)
                except JqError:
                    if optional:
                        continue
                    raise
                yield (*path, k), found

        return indexed

    def iterate(self, node: s.Iterate) -> Step:
        target = self.step(node.target)

        optional = node.optional

        def each(pair: Pair, dot: Any, e: Env) -> Iterator[Pair]:
            for path, value in target(pair, dot, e):
                if optional and type(value) is not list and type(value) is not dict:
                    continue
                iterate(value)  # raises jq's error for non-iterables
                items = value.items() if type(value) is dict else enumerate(value)
                for k, item in items:
                    yield (*path, k), item

        return each

    def call(self, node: s.Call) -> Step:
        if node.name == "empty" and not node.args:
            return lambda pair, dot, e: iter(())
        if node.name == "select" and len(node.args) == 1:
            cond = self.values.compile(node.args[0], self.scope).gen

            def selected(pair: Pair, dot: Any, e: Env) -> Iterator[Pair]:
                for c in cond(pair[1], e):
                    if truthy(c):
                        yield pair

            return selected
        raise NotNative(node.name)
