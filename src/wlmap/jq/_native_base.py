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
    """Per-evaluation control: the deadline, checked every few hundred steps."""

    __slots__ = ("deadline", "steps")

    def __init__(self, deadline: float) -> None:
        self.deadline = deadline
        self.steps = 0

    def tick(self) -> None:
        self.steps += 1
        if not self.steps & _TICK_MASK and time.monotonic() > self.deadline:
            raise LimitHit("evaluation exceeded its time limit")


class Env:
    """Variables in scope plus the evaluation's control block."""

    __slots__ = ("ctl", "vars")

    def __init__(self, variables: dict[str, Any], ctl: Ctl) -> None:
        self.vars = variables
        self.ctl = ctl

    def bind(self, name: str, value: Any) -> Env:
        return Env({**self.vars, name: value}, self.ctl)


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
    """Dispatches a node to the ``c_<NodeType>`` method that compiles it."""

    def compile(self, node: s.Node, scope: frozenset[str]) -> Code:
        method = getattr(self, "c_" + type(node).__name__, None)
        if method is None:
            raise NotNative(type(node).__name__)
        code: Code = method(node, scope)
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
