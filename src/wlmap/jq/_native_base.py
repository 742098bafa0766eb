"""Runtime types shared by the native evaluator's compilers: control, environment, code."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from wlmap.jq import syntax as s
from wlmap.jq._values import LimitHit

_TICK_MASK = 255


class Ctl:
    """Per-evaluation control: the deadline, checked every few hundred steps, and the
    size budget left (``cells``; charged only by programs compiled ``bounded``)."""

    __slots__ = ("budget", "cells", "deadline", "steps")

    def __init__(self, deadline: float, cells: int = 0) -> None:
        self.deadline = deadline
        self.steps = 0
        self.budget = self.cells = cells

    def tick(self) -> None:
        self.steps += 1
        if not self.steps & _TICK_MASK and time.monotonic() > self.deadline:
            raise LimitHit("evaluation exceeded its time limit")

    def charge(self, cells: int) -> None:
        """Spend part of the size budget; past it the evaluation stops."""
        self.cells -= cells
        if self.cells < 0:
            raise LimitHit(
                f"evaluation exceeded its size limit ({self.budget} cells of values "
                "built or traversed)"
            )
        self.tick()


# Shared sub-expression results: key -> (the input evaluated, the single output).
Memo = dict[str, tuple[Any, Any]]


class Env:
    """Variables in scope, the evaluation's control block and its shared results, if any."""

    __slots__ = ("ctl", "memo", "vars")

    def __init__(self, variables: dict[str, Any], ctl: Ctl, memo: Memo | None = None) -> None:
        self.vars = variables
        self.ctl = ctl
        self.memo = memo

    def bind(self, name: str, value: Any) -> Env:
        return Env({**self.vars, name: value}, self.ctl, self.memo)


# The variables of programs without any (never written: bindings copy them).
NO_VARIABLES: dict[str, Any] = {}


class Session:
    """One context for evaluating several programs on values that do not change meanwhile.

    The programs share the results of their common sub-expressions (each reused only for
    the very same input value) and one environment. Use one session for the evaluations
    of one object, from one thread, and drop it before the object may change.
    """

    __slots__ = ("env",)

    def __init__(self) -> None:
        # Each evaluation resets the deadline and step count of this one environment.
        self.env = Env(NO_VARIABLES, Ctl(0.0), {})


Gen = Callable[[Any, Env], Iterable[Any]]
One = Callable[[Any, Env], Any]


@dataclass(frozen=True, slots=True)
class Code:
    """A compiled node: ``gen`` always, ``one`` when the node has exactly one output."""

    gen: Gen
    one: One | None = None


class NotNative(Exception):
    """The node is outside the natively supported subset."""


def from_one(one: One) -> Code:
    """Wrap a single-output function as a :class:`Code`."""
    return Code(lambda v, e: (one(v, e),), one)


class CompilerBase:
    """Dispatches a node to the ``c_<NodeType>`` method that compiles it.

    ``shared`` names the nodes (by ``id``) whose single output is kept in the
    evaluation's memo under the given key, for other programs on the same input.
    ``bounded`` compiles the charged variants of growing and traversing operations
    (``_bounded``) for untrusted programs.
    """

    def __init__(self, shared: dict[int, str] | None = None, *, bounded: bool = False) -> None:
        self.shared = shared or {}
        self.bounded = bounded

    def compile(self, node: s.Node, scope: frozenset[str]) -> Code:
        method = getattr(self, "c_" + type(node).__name__, None)
        if method is None:
            raise NotNative(type(node).__name__)
        code: Code = method(node, scope)
        key = self.shared.get(id(node))
        if key is not None and code.one is not None:
            return memoized(key, code.one)
        return code

    def unary(self, operand: Code, fn: Callable[[Any], Any]) -> Code:
        """Apply ``fn`` to each output of ``operand``."""
        if operand.one is not None:
            one = operand.one
            return from_one(lambda v, e: fn(one(v, e)))
        ogen = operand.gen
        return Code(lambda v, e: (fn(x) for x in ogen(v, e)))

    def binary(self, left: Code, right: Code, fn: Callable[[Any, Any], Any]) -> Code:
        """Apply ``fn`` to every pair of outputs, the right operand in the outer loop."""
        if left.one is not None and right.one is not None:
            lone, rone = left.one, right.one

            def both(v: Any, e: Env) -> Any:
                b = rone(v, e)
                return fn(lone(v, e), b)

            return from_one(both)
        lgen, rgen = left.gen, right.gen

        def gen(v: Any, e: Env) -> Iterator[Any]:
            for b in rgen(v, e):
                for a in lgen(v, e):
                    e.ctl.tick()
                    yield fn(a, b)

        return Code(gen)

    def charged_binary(self, left: Code, right: Code, fn: Callable[[Any, Any, Ctl], Any]) -> Code:
        """:meth:`binary` for an operator that charges the evaluation's budget."""
        lgen, rgen = left.gen, right.gen
        if left.one is not None and right.one is not None:
            lone, rone = left.one, right.one

            def both(v: Any, e: Env) -> Any:
                b = rone(v, e)
                return fn(lone(v, e), b, e.ctl)

            return from_one(both)

        def gen(v: Any, e: Env) -> Iterator[Any]:
            for b in rgen(v, e):
                for a in lgen(v, e):
                    e.ctl.tick()
                    yield fn(a, b, e.ctl)

        return Code(gen)


def memoized(key: str, one: One) -> Code:
    """``one`` computed once per input value among the evaluations sharing a memo."""

    def shared(v: Any, e: Env) -> Any:
        memo = e.memo
        if memo is None:
            return one(v, e)
        hit = memo.get(key)
        if hit is not None and hit[0] is v:
            return hit[1]
        out = one(v, e)
        memo[key] = (v, out)
        return out

    return from_one(shared)
