"""Compiles the common subset of jq into Python closures that reproduce libjq's results.

Each node becomes a :class:`Code`: ``gen(value, env)`` yields the node's outputs, and
``one(value, env)``, when present, returns the single output of a node that always has
exactly one. Generators stay lazy where jq is lazy, so ``try``, ``first`` and ``//`` see
the same prefix of outputs libjq sees. Anything outside the subset makes :func:`compile_native`
return None; a rare runtime case the subset cannot reproduce raises ``Unsupported`` and the
caller re-evaluates with libjq (evaluation is pure, so re-running is safe).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

from wlmap.jq import _bounded
from wlmap.jq import syntax as s
from wlmap.jq._arith import BINARY, negate
from wlmap.jq._native_base import Code, Env, NotNative, from_one
from wlmap.jq._native_calls import CallCompiler
from wlmap.jq._native_index import IndexCompiler
from wlmap.jq._native_shared import shareable
from wlmap.jq._native_struct import StructCompiler
from wlmap.jq._values import JqError, compare, equal, tojson, tostring, truthy


def compile_native(
    node: s.Node, variables: frozenset[str], *, bounded: bool = False
) -> Code | None:
    """Compile ``node`` for native evaluation, or return None when it is not supported.

    ``bounded`` charges what the program builds and traverses to the evaluation's size
    budget (for untrusted programs, see ``_bounded``).
    """
    try:
        return Compiler(shareable(node), bounded=bounded).compile(node, variables)
    except (NotNative, RecursionError):
        return None


class Compiler(CallCompiler, StructCompiler, IndexCompiler):
    """Turns syntax nodes into :class:`Code`; raises :class:`NotNative` when it cannot."""

    def c_Identity(self, node: s.Identity, scope: frozenset[str]) -> Code:
        return from_one(lambda v, e: v)

    def c_Literal(self, node: s.Literal, scope: frozenset[str]) -> Code:
        value = node.value
        if node.text is not None and node.text not in (str(value), repr(value)):
            raise NotNative("number literal whose spelling jq preserves")
        return from_one(lambda v, e: value)

    def c_Var(self, node: s.Var, scope: frozenset[str]) -> Code:
        if node.name not in scope:
            raise NotNative(f"${node.name}")
        name = node.name
        return from_one(lambda v, e: e.vars[name])

    def c_Try(self, node: s.Try, scope: frozenset[str]) -> Code:
        body = self.compile(node.body, scope)
        handler = None if node.handler is None else self.compile(node.handler, scope)
        hgen = None if handler is None else handler.gen
        if body.one is not None:
            bone = body.one

            def attempt(v: Any, e: Env) -> Iterable[Any]:
                try:
                    return (bone(v, e),)
                except JqError as err:
                    return () if hgen is None else hgen(err.value, e)

            return Code(attempt)
        bgen = body.gen

        def gen(v: Any, e: Env) -> Iterator[Any]:
            try:
                yield from bgen(v, e)
            except JqError as err:
                if hgen is not None:
                    yield from hgen(err.value, e)

        return Code(gen)

    def c_Pipe(self, node: s.Pipe, scope: frozenset[str]) -> Code:
        left = self.compile(node.left, scope)
        right = self.compile(node.right, scope)
        lone, rone, rgen = left.one, right.one, right.gen
        if lone is not None and rone is not None:
            return from_one(lambda v, e: rone(lone(v, e), e))
        if lone is not None:
            return Code(lambda v, e: rgen(lone(v, e), e))
        lgen = left.gen
        if rone is not None:

            def each(v: Any, e: Env) -> Iterator[Any]:
                tick = e.ctl.tick
                for x in lgen(v, e):
                    tick()
                    yield rone(x, e)

            return Code(each)

        def gen(v: Any, e: Env) -> Iterator[Any]:
            tick = e.ctl.tick
            for x in lgen(v, e):
                tick()
                yield from rgen(x, e)

        return Code(gen)

    def c_Comma(self, node: s.Comma, scope: frozenset[str]) -> Code:
        lgen = self.compile(node.left, scope).gen
        rgen = self.compile(node.right, scope).gen

        def gen(v: Any, e: Env) -> Iterator[Any]:
            yield from lgen(v, e)
            yield from rgen(v, e)

        return Code(gen)

    def c_Neg(self, node: s.Neg, scope: frozenset[str]) -> Code:
        return self.unary(self.compile(node.operand, scope), negate)

    def c_Binary(self, node: s.Binary, scope: frozenset[str]) -> Code:
        op = BINARY.get(node.op) or _COMPARISONS[node.op]
        left, right = self.compile(node.left, scope), self.compile(node.right, scope)
        if self.bounded:
            return self.charged_binary(left, right, _bounded.binary(node.op, op))
        # Against a constant (`.type == "Ready"`), which cannot fail, the order of
        # evaluation does not matter: apply the operator directly.
        lone, rone = left.one, right.one
        if isinstance(node.right, s.Literal) and lone is not None:
            b = node.right.value
            return from_one(lambda v, e: op(lone(v, e), b))
        if isinstance(node.left, s.Literal) and rone is not None:
            a = node.left.value
            return from_one(lambda v, e: op(a, rone(v, e)))
        return self.binary(left, right, op)

    def c_And(self, node: s.And, scope: frozenset[str]) -> Code:
        return self.logical(node, scope, stop=False)

    def c_Or(self, node: s.Or, scope: frozenset[str]) -> Code:
        return self.logical(node, scope, stop=True)

    def logical(self, node: s.And | s.Or, scope: frozenset[str], stop: bool) -> Code:
        left = self.compile(node.left, scope)
        right = self.compile(node.right, scope)
        lgen, rgen = left.gen, right.gen
        if left.one is not None and right.one is not None:
            lone, rone = left.one, right.one

            def decide(v: Any, e: Env) -> bool:
                a = lone(v, e)
                if (a is not None and a is not False) is stop:
                    return stop
                b = rone(v, e)
                return b is not None and b is not False

            return from_one(decide)

        def gen(v: Any, e: Env) -> Iterator[Any]:
            for a in lgen(v, e):
                if truthy(a) is stop:
                    yield stop
                    continue
                for b in rgen(v, e):
                    e.ctl.tick()
                    yield truthy(b)

        return Code(gen)

    def c_Alternative(self, node: s.Alternative, scope: frozenset[str]) -> Code:
        left = self.compile(node.left, scope)
        right = self.compile(node.right, scope)
        rgen = right.gen
        if left.one is not None and right.one is not None:
            lone, rone = left.one, right.one

            def either(v: Any, e: Env) -> Any:
                a = lone(v, e)
                return a if truthy(a) else rone(v, e)

            return from_one(either)
        lgen = left.gen

        def gen(v: Any, e: Env) -> Iterator[Any]:
            found = False
            for a in lgen(v, e):
                if truthy(a):
                    found = True
                    yield a
            if not found:
                yield from rgen(v, e)

        return Code(gen)

    def c_ArrayCons(self, node: s.ArrayCons, scope: frozenset[str]) -> Code:
        if node.body is None:
            return from_one(lambda v, e: [])
        body = self.compile(node.body, scope)
        if body.one is not None:
            bone = body.one
            return from_one(lambda v, e: [bone(v, e)])
        bgen = body.gen
        if self.bounded:
            return from_one(lambda v, e: _collect(bgen(v, e), e))
        return from_one(lambda v, e: list(bgen(v, e)))

    def c_If(self, node: s.If, scope: frozenset[str]) -> Code:
        cond = self.compile(node.cond, scope)
        then = self.compile(node.then, scope)
        other = self.compile(node.else_ or s.Identity(), scope)
        if cond.one is not None and then.one is not None and other.one is not None:
            cone, tone, oone = cond.one, then.one, other.one
            return from_one(lambda v, e: tone(v, e) if truthy(cone(v, e)) else oone(v, e))
        cgen, tgen, ogen = cond.gen, then.gen, other.gen

        def gen(v: Any, e: Env) -> Iterator[Any]:
            for c in cgen(v, e):
                e.ctl.tick()
                yield from (tgen if truthy(c) else ogen)(v, e)

        return Code(gen)

    def c_Format(self, node: s.Format, scope: frozenset[str]) -> Code:
        fn = _FORMATS.get(node.name)
        if fn is None:
            raise NotNative(f"@{node.name}")
        if self.bounded:
            rendered = _bounded.render(fn)
            return from_one(lambda v, e: rendered(v, e.ctl))
        return from_one(lambda v, e: fn(v))


def _collect(outputs: Iterable[Any], e: Env) -> list[Any]:
    """An array construction that pays one cell per element as it collects them, so a
    fan-out stops at the budget instead of after it has filled memory."""
    result: list[Any] = []
    append, charge = result.append, e.ctl.charge
    for x in outputs:
        charge(1)
        append(x)
    return result


_COMPARISONS: dict[str, Callable[[Any, Any], Any]] = {
    "==": equal,
    "!=": lambda a, b: not equal(a, b),
    "<": lambda a, b: compare(a, b) < 0,
    "<=": lambda a, b: compare(a, b) <= 0,
    ">": lambda a, b: compare(a, b) > 0,
    ">=": lambda a, b: compare(a, b) >= 0,
}
_FORMATS: dict[str, Callable[[Any], str]] = {"text": tostring, "json": tojson}
