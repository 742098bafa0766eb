"""Native compilation of indexing: ``.a.b``, ``.[k]``, ``.[i:j]``, ``.[]`` and their ``?`` forms."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from wlmap.jq import syntax as s
from wlmap.jq._bounded import shallow
from wlmap.jq._builtins import index_value, iterate, slice_value
from wlmap.jq._native_base import Code, CompilerBase, Env, from_one
from wlmap.jq._values import JqError


class IndexCompiler(CompilerBase):
    """``c_`` methods for indexing, slicing and iteration."""

    def c_Index(self, node: s.Index, scope: frozenset[str]) -> Code:
        chain, base = _field_suffix(node)
        if chain:
            # `X.a.b.c`: one loop over the keys instead of a closure (or generator) per key.
            if isinstance(base, s.Identity):
                if len(chain) == 1:
                    name = chain[0]

                    def field(v: Any, e: Env) -> Any:
                        return v.get(name) if type(v) is dict else index_value(v, name)

                    return from_one(field)

                def walk(v: Any, e: Env) -> Any:
                    for name in chain:
                        v = v.get(name) if type(v) is dict else index_value(v, name)
                    return v

                return from_one(walk)
            target = self.compile(base, scope)
            if target.one is not None:
                tone = target.one

                def chained(v: Any, e: Env) -> Any:
                    t = tone(v, e)
                    for name in chain:
                        t = t.get(name) if type(t) is dict else index_value(t, name)
                    return t

                return from_one(chained)
            tgen = target.gen

            def each(v: Any, e: Env) -> Iterator[Any]:
                tick = e.ctl.tick
                for t in tgen(v, e):
                    tick()
                    found = t
                    for name in chain:
                        found = found.get(name) if type(found) is dict else index_value(found, name)
                    yield found

            return Code(each)
        target = self.compile(node.target, scope)
        if node.optional:
            return self.optional_index(target, self.compile(node.key, scope))
        # jq evaluates the key in the outer loop, as the right operand of a binary operator.
        return self.binary(target, self.compile(node.key, scope), index_value)

    def optional_index(self, target: Code, key: Code) -> Code:
        kgen, tgen = key.gen, target.gen

        def gen(v: Any, e: Env) -> Iterator[Any]:
            for k in kgen(v, e):
                for t in tgen(v, e):
                    e.ctl.tick()
                    try:
                        found = index_value(t, k)
                    except JqError:
                        continue
                    yield found

        return Code(gen)

    def c_Slice(self, node: s.Slice, scope: frozenset[str]) -> Code:
        target = self.compile(node.target, scope)
        none = from_one(lambda v, e: None)
        start = none if node.start is None else self.compile(node.start, scope)
        end = none if node.end is None else self.compile(node.end, scope)
        optional = node.optional
        # a slice is a copy: an untrusted program pays for it (kept slices add up)
        charge = self.bounded

        def gen(v: Any, e: Env) -> Iterator[Any]:
            for a in start.gen(v, e):
                for b in end.gen(v, e):
                    for t in target.gen(v, e):
                        e.ctl.tick()
                        try:
                            found = slice_value(t, a, b)
                        except JqError:
                            if optional:
                                continue
                            raise
                        if charge:
                            e.ctl.charge(shallow(found))
                        yield found

        return Code(gen)

    def c_Iterate(self, node: s.Iterate, scope: frozenset[str]) -> Code:
        target = self.compile(node.target, scope)
        each = _iterate_optional if node.optional else iterate
        if target.one is not None:
            tone = target.one
            return Code(lambda v, e: each(tone(v, e)))
        tgen = target.gen

        def gen(v: Any, e: Env) -> Iterator[Any]:
            for t in tgen(v, e):
                e.ctl.tick()
                yield from each(t)

        return Code(gen)


def _iterate_optional(t: Any) -> list[Any]:
    if type(t) is list:
        return t
    if type(t) is dict:
        return list(t.values())
    return []


def _field_suffix(node: s.Index) -> tuple[tuple[str, ...], s.Node]:
    """The plain string keys ``.a.b`` ending ``node`` (none optional) and what they index."""
    keys: list[str] = []
    current: s.Node = node
    while isinstance(current, s.Index):
        key = current.key
        if current.optional or not isinstance(key, s.Literal) or not isinstance(key.value, str):
            break
        keys.append(key.value)
        current = current.target
    return tuple(reversed(keys)), current
