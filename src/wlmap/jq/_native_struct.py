"""Native compilation of constructions and bindings: objects, strings, ``as``, ``reduce``."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

from wlmap.jq import _bounded
from wlmap.jq import syntax as s
from wlmap.jq._native_base import Code, CompilerBase, Ctl, Env, NotNative, from_one
from wlmap.jq._values import JqError, describe, tojson, tostring

_INTERP_FORMATS = {None: tostring, "text": tostring, "json": tojson}


def _key(k: Any) -> str:
    if type(k) is not str:
        raise JqError(f"Cannot use {describe(k)} as object key")
    return k


def _last(outputs: Iterable[Any]) -> Any:
    last = None
    for last in outputs:  # noqa: B007 - only the last output matters
        pass
    return last


class StructCompiler(CompilerBase):
    """``c_`` methods for constructions and variable bindings."""

    def c_ObjectCons(self, node: s.ObjectCons, scope: frozenset[str]) -> Code:
        keys = [self.compile(entry.key, scope) for entry in node.entries]
        values = [self.compile(entry.value, scope) for entry in node.entries]
        constant = [
            entry.key.value
            for entry in node.entries
            if isinstance(entry.key, s.Literal) and isinstance(entry.key.value, str)
        ]
        ones = [value.one for value in values if value.one is not None]
        if len(constant) == len(keys) and len(ones) == len(values):
            pairs = tuple(zip(constant, ones, strict=True))
            return from_one(lambda v, e: {k: one(v, e) for k, one in pairs})
        count = len(keys)

        def build(v: Any, e: Env, i: int, pairs: tuple[Any, ...]) -> Iterator[dict[str, Any]]:
            # The first entry varies slowest; within an entry, the key does.
            if i == count:
                yield dict(pairs)
                return
            for k in keys[i].gen(v, e):
                name = _key(k)
                for value in values[i].gen(v, e):
                    e.ctl.tick()
                    yield from build(v, e, i + 1, (*pairs, (name, value)))

        return Code(lambda v, e: build(v, e, 0, ()))

    def c_StringInterp(self, node: s.StringInterp, scope: frozenset[str]) -> Code:
        if node.fmt not in _INTERP_FORMATS:
            raise NotNative(f"@{node.fmt}")
        render = _INTERP_FORMATS[node.fmt]
        if self.bounded:
            rendered = _bounded.render(render)
            return self.charged_interpolation(node, scope, rendered)
        parts: list[str | Code] = [
            part if isinstance(part, str) else self.compile(part, scope) for part in node.parts
        ]
        if all(isinstance(part, str) or part.one is not None for part in parts):
            ones = [part if isinstance(part, str) else part.one for part in parts]

            def joined(v: Any, e: Env) -> str:
                return "".join(
                    piece if isinstance(piece, str) else render(piece(v, e))  # type: ignore[misc]
                    for piece in ones
                )

            return from_one(joined)
        slots = [i for i, part in enumerate(parts) if not isinstance(part, str)]

        def build(v: Any, e: Env, j: int, chosen: list[Any]) -> Iterator[str]:
            # The last interpolation varies slowest, as in libjq.
            if j < 0:
                yield "".join(
                    part if isinstance(part, str) else render(chosen[i])
                    for i, part in enumerate(parts)
                )
                return
            part = parts[slots[j]]
            assert not isinstance(part, str)
            for x in part.gen(v, e):
                e.ctl.tick()
                chosen[slots[j]] = x
                yield from build(v, e, j - 1, chosen)

        return Code(lambda v, e: build(v, e, len(slots) - 1, [None] * len(parts)))

    def charged_interpolation(
        self, node: s.StringInterp, scope: frozenset[str], render: Callable[[Any, Ctl], str]
    ) -> Code:
        """A string interpolation of an untrusted program: every part and the result are
        charged (outputs in libjq's order, as the unbounded form gives them)."""
        parts = [p if isinstance(p, str) else self.compile(p, scope) for p in node.parts]
        slots = [i for i, part in enumerate(parts) if not isinstance(part, str)]
        if all(isinstance(part, str) or part.one is not None for part in parts):
            ones = [part if isinstance(part, str) else part.one for part in parts]

            def joined(v: Any, e: Env) -> str:
                text = "".join(
                    piece if isinstance(piece, str) else render(piece(v, e), e.ctl)  # type: ignore[misc]
                    for piece in ones
                )
                e.ctl.charge(_bounded.shallow(text))
                return text

            return from_one(joined)

        def build(v: Any, e: Env, j: int, chosen: list[str]) -> Iterator[str]:
            if j < 0:
                text = "".join(chosen)
                e.ctl.charge(_bounded.shallow(text))
                yield text
                return
            part = parts[slots[j]]
            assert not isinstance(part, str)
            for x in part.gen(v, e):
                e.ctl.tick()
                chosen[slots[j]] = render(x, e.ctl)
                yield from build(v, e, j - 1, chosen)

        start = [p if isinstance(p, str) else "" for p in parts]
        return Code(lambda v, e: build(v, e, len(slots) - 1, list(start)))

    def c_Bind(self, node: s.Bind, scope: frozenset[str]) -> Code:
        if len(node.patterns) != 1 or not isinstance(node.patterns[0], s.VarPattern):
            raise NotNative("destructuring")
        name = node.patterns[0].name
        source = self.compile(node.source, scope)
        body = self.compile(node.body, scope | {name})
        bgen = body.gen
        if source.one is not None:
            sone = source.one
            if body.one is not None:
                bone = body.one
                return from_one(lambda v, e: bone(v, e.bind(name, sone(v, e))))
            return Code(lambda v, e: bgen(v, e.bind(name, sone(v, e))))
        sgen = source.gen

        def gen(v: Any, e: Env) -> Iterator[Any]:
            for x in sgen(v, e):
                e.ctl.tick()
                yield from bgen(v, e.bind(name, x))

        return Code(gen)

    def c_Reduce(self, node: s.Reduce, scope: frozenset[str]) -> Code:
        if not isinstance(node.pattern, s.VarPattern):
            raise NotNative("destructuring")
        name = node.pattern.name
        sgen = self.compile(node.source, scope).gen
        init = self.compile(node.init, scope)
        update = self.compile(node.update, scope | {name})
        uone, ugen = update.one, update.gen

        def fold(v: Any, e: Env, acc: Any) -> Any:
            tick = e.ctl.tick
            for x in sgen(v, e):
                tick()
                inner = e.bind(name, x)
                acc = uone(acc, inner) if uone is not None else _last(ugen(acc, inner))
            return acc

        if init.one is None:
            # libjq re-runs the source on null for every initial value after the first.
            raise NotNative("reduce with a generator as initial value")
        ione = init.one
        return from_one(lambda v, e: fold(v, e, ione(v, e)))
