"""Native compilation of builtin calls (``select``, ``map``, ``sort_by``, ``test``, ...)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

from wlmap.jq import _bounded
from wlmap.jq import syntax as s
from wlmap.jq._arith import add
from wlmap.jq._builtins import TYPE_FILTERS, ZERO_ARG, from_entries, iterate, to_entries
from wlmap.jq._builtins_args import ONE_ARG, compile_regex
from wlmap.jq._native_base import Code, CompilerBase, Env, NotNative, from_one
from wlmap.jq._values import JqError, Unsupported, describe, sort_key, truthy

_BY_FUNCTIONS = frozenset({"sort_by", "group_by", "unique_by", "min_by", "max_by"})


def _keyed(v: Any, fgen: Callable[[Any, Env], Iterable[Any]], e: Env) -> list[Any]:
    if type(v) is not list:
        raise Unsupported("*_by on a non-array")
    keyed = []
    for item in v:
        e.ctl.tick()
        keyed.append((sort_key(list(fgen(item, e))), item))
    return keyed


def _by(name: str, v: Any, fgen: Callable[[Any, Env], Iterable[Any]], e: Env) -> Any:
    keyed = _keyed(v, fgen, e)
    if name == "min_by":
        return min(keyed, key=lambda pair: pair[0])[1] if keyed else None
    if name == "max_by":
        best = None
        for pair in keyed:
            if best is None or pair[0] >= best[0]:
                best = pair
        return None if best is None else best[1]
    keyed.sort(key=lambda pair: pair[0])
    if name == "sort_by":
        return [item for _, item in keyed]
    groups: list[list[Any]] = []
    previous: Any = None
    for key, item in keyed:
        if groups and key == previous:
            groups[-1].append(item)
        else:
            groups.append([item])
        previous = key
    return groups if name == "group_by" else [group[0] for group in groups]


def _map_values(v: Any, fgen: Callable[[Any, Env], Iterable[Any]], e: Env) -> Any:
    iterate(v)  # raises jq's error for non-iterables
    if type(v) is dict:
        result: dict[str, Any] = {}
        for key, value in v.items():
            e.ctl.tick()
            for out in fgen(value, e):
                result[key] = out
                break
        return result
    kept = []
    for value in v:
        e.ctl.tick()
        for out in fgen(value, e):
            kept.append(out)
            break
    return kept


def _map(v: Any, fgen: Callable[[Any, Env], Iterable[Any]], e: Env) -> list[Any]:
    result: list[Any] = []
    tick = e.ctl.tick
    for item in iterate(v):
        tick()
        result.extend(fgen(item, e))
    return result


def _map_charged(v: Any, fgen: Callable[[Any, Env], Iterable[Any]], e: Env) -> list[Any]:
    result: list[Any] = []
    append, charge = result.append, e.ctl.charge
    for item in iterate(v):
        for out in fgen(item, e):
            charge(1)
            append(out)
    return result


def _by_charged(name: str, v: Any, fgen: Callable[[Any, Env], Iterable[Any]], e: Env) -> Any:
    def keyed(item: Any, e: Env) -> Iterator[Any]:
        for key in fgen(item, e):
            yield _bounded.walk(key, e.ctl)

    out = _by(name, v, keyed, e)
    e.ctl.charge(_bounded.shallow(out))
    return out


class CallCompiler(CompilerBase):
    """``c_Call``: builtins with a native implementation."""

    def c_Call(self, node: s.Call, scope: frozenset[str]) -> Code:
        name, arity = node.name, len(node.args)
        if arity == 0:
            return self.call0(name)
        args = [self.compile(arg, scope) for arg in node.args]
        if arity == 1:
            return self.call1(name, node.args[0], args[0])
        if arity == 2 and name in ("any", "all"):
            return self.quantifier(name, args[0].gen, args[1].gen, args[1].one)
        raise NotNative(f"{name}/{arity}")

    def call0(self, name: str) -> Code:
        charged = _bounded.zero_arg(name) if self.bounded else None
        if charged is not None:
            return from_one(lambda v, e: charged(v, e.ctl))
        if name in ZERO_ARG:
            fn = ZERO_ARG[name]
            return from_one(lambda v, e: fn(v))
        if name in TYPE_FILTERS:
            test = TYPE_FILTERS[name]
            return Code(lambda v, e: (v,) if test(v) else ())
        if name == "empty":
            return Code(lambda v, e: ())
        if name == "error":

            def fail(v: Any, e: Env) -> Any:
                raise JqError(v)

            return from_one(fail)
        if name in ("any", "all"):
            return self.quantifier(name, lambda v, e: iterate(v), lambda v, e: (v,))
        raise NotNative(f"{name}/0")

    def call1(self, name: str, arg_node: s.Node, arg: Code) -> Code:
        fgen = arg.gen
        if name == "select":
            if arg.one is not None:
                fone = arg.one
                return Code(lambda v, e: (v,) if truthy(fone(v, e)) else ())
            return Code(lambda v, e: (v for c in fgen(v, e) if truthy(c)))
        mapped = _map_charged if self.bounded else _map
        if name == "map":
            return from_one(lambda v, e: mapped(v, fgen, e))
        if name == "map_values":
            return from_one(lambda v, e: _map_values(v, fgen, e))
        if name == "with_entries":
            return from_one(lambda v, e: from_entries(mapped(to_entries(v), fgen, e)))
        if name in _BY_FUNCTIONS:
            by = _by_charged if self.bounded else _by
            return from_one(lambda v, e: by(name, v, fgen, e))
        if name in ("any", "all"):
            return self.quantifier(name, lambda v, e: iterate(v), fgen, arg.one)
        if name == "first":
            return Code(lambda v, e: _first(fgen(v, e)))
        if name == "last":
            return Code(lambda v, e: _final(fgen(v, e), e))
        if name == "add":
            if self.bounded:
                return from_one(lambda v, e: _bounded.total(fgen(v, e), e.ctl))
            return from_one(lambda v, e: _sum(fgen(v, e)))
        if name == "test":
            return self.test(arg_node)
        charged = _bounded.one_arg(name) if self.bounded else None
        if charged is not None:
            if arg.one is not None:
                cone = arg.one
                return from_one(lambda v, e: charged(v, cone(v, e), e.ctl))
            return Code(lambda v, e: (charged(v, a, e.ctl) for a in fgen(v, e)))
        if name in ONE_ARG:
            fn = ONE_ARG[name]
            if arg.one is not None:
                aone = arg.one
                return from_one(lambda v, e: fn(v, aone(v, e)))
            return Code(lambda v, e: (fn(v, a) for a in fgen(v, e)))
        raise NotNative(f"{name}/1")

    def quantifier(
        self,
        name: str,
        gen: Callable[[Any, Env], Iterable[Any]],
        cond: Callable[[Any, Env], Iterable[Any]],
        cond_one: Callable[[Any, Env], Any] | None = None,
    ) -> Code:
        wanted = name == "any"
        if cond_one is not None:

            def decide_each(v: Any, e: Env) -> bool:
                tick = e.ctl.tick
                for x in gen(v, e):
                    tick()
                    c = cond_one(x, e)
                    if (c is not None and c is not False) is wanted:
                        return wanted
                return not wanted

            return from_one(decide_each)

        def decide(v: Any, e: Env) -> bool:
            for x in gen(v, e):
                e.ctl.tick()
                for c in cond(x, e):
                    if truthy(c) is wanted:
                        return wanted
            return not wanted

        return from_one(decide)

    def test(self, arg_node: s.Node) -> Code:
        if not (isinstance(arg_node, s.Literal) and isinstance(arg_node.value, str)):
            raise NotNative("test with a computed pattern")
        regex = compile_regex(arg_node.value)
        if regex is None:
            raise NotNative("test with a pattern outside the safe subset")
        if self.bounded:
            bounded_search = _bounded.searcher(arg_node.value)

            def matches_in_time(v: Any, e: Env) -> bool:
                if type(v) is not str:
                    raise JqError(f"{describe(v)} cannot be matched, as it is not a string")
                return bounded_search(v, e.ctl)

            return from_one(matches_in_time)
        search = regex.search

        def matches(v: Any, e: Env) -> bool:
            if type(v) is not str:
                raise JqError(f"{describe(v)} cannot be matched, as it is not a string")
            return search(v) is not None

        return from_one(matches)


def _first(outputs: Iterable[Any]) -> tuple[Any, ...]:
    for x in outputs:
        return (x,)
    return ()


def _final(outputs: Iterable[Any], e: Env) -> Iterator[Any]:
    found, last, tick = False, None, e.ctl.tick
    for last in outputs:  # noqa: B007 - only the last output matters
        found = True
        tick()
    if found:
        yield last


def _sum(outputs: Iterable[Any]) -> Any:
    total = None
    for x in outputs:
        total = add(total, x)
    return total
