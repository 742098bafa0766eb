"""Translate jq expressions, as wlmap's parser reads them, to Lua filters.

A jq filter becomes a Lua expression whose value is a function ``(input, vars)`` that
returns the list of its outputs, built from the combinators of
:mod:`wlmap.export._lua_runtime`. jq's own rules give nil safety (``.a`` of null is null;
``.a[]?`` of null is nothing), and the loops walk only the object's tables or finite
streams: recursion (``def``, ``recurse``, ``..``), ``while``/``until``/``range``/``limit``
and other unbounded constructs are refused, as are the shapes whose cost grows faster than
the object (``wlmap.jq.cost``: fan-out along a pipeline, self-doubling) and anything else
outside the supported set, with the construct named. One translator serves every export target.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from wlmap.export._lua_runtime import NEEDS_STRING
from wlmap.export._regex import RegexNotTranslatable, lua_patterns
from wlmap.jq import parse
from wlmap.jq import syntax as s
from wlmap.jq.cost import costly_constructs

__all__ = ["LuaFilter", "NotTranslatable", "lua_string", "translate"]

# name/arity -> runtime table holding it (one output per input)
_BUILTIN1 = frozenset(
    {
        "not",
        "length",
        "type",
        "add",
        "max",
        "min",
        "keys",
        "tostring",
        "tonumber",
        "ascii_downcase",
        "ascii_upcase",
        "first",
        "last",
        "fromjson",
    }
)
_BUILTIN2 = frozenset({"has", "join", "startswith", "endswith", "ltrimstr", "rtrimstr"})
_CONSTANTS = {"null": "K(NULL)", "true": "K(true)", "false": "K(false)", "empty": "EMPTY"}


class NotTranslatable(Exception):
    """A construct outside what the translator turns into bounded Lua."""

    def __init__(self, construct: str, expression: str) -> None:
        shown = " ".join(expression.split())
        super().__init__(f"cannot translate {construct} in {shown!r}")
        self.construct = construct
        self.expression = expression


@dataclass(frozen=True)
class LuaFilter:
    """A translated filter: its Lua expression and whether it needs the string library."""

    code: str
    needs_string: bool = False


@dataclass
class _Translator:
    text: str
    bound: set[str] = field(default_factory=set)
    needs_string: bool = False

    def refuse(self, construct: str) -> NotTranslatable:
        return NotTranslatable(construct, self.text)

    def node(self, n: s.Node) -> str:
        if isinstance(n, s.Identity):
            return "ID"
        if isinstance(n, s.Literal):
            return f"K({lua_value(n.value)})"
        if isinstance(n, s.Index):
            path = _field_path(n)
            if path is not None:
                return "P(" + ", ".join(lua_string(k) for k in path) + ")"
            if isinstance(n.key, s.Literal) and isinstance(n.key.value, str) and not n.optional:
                return f"F({self.node(n.target)}, {lua_string(n.key.value)})"
            return f"INDEX({self.node(n.target)}, {self.node(n.key)}, {_flag(n.optional)})"
        if isinstance(n, s.Iterate):
            return f"ITER({self.node(n.target)}, {_flag(n.optional)})"
        if isinstance(n, s.Try):
            handler = "nil" if n.handler is None else self.node(n.handler)
            return f"TRY({self.node(n.body)}, {handler})"
        if isinstance(n, s.Pipe):
            return f"PIPE({self.node(n.left)}, {self.node(n.right)})"
        if isinstance(n, s.Comma):
            return f"COMMA({self.node(n.left)}, {self.node(n.right)})"
        if isinstance(n, s.Neg):
            return f"NEG({self.node(n.operand)})"
        if isinstance(n, s.Binary):
            return f"BIN({lua_string(n.op)}, {self.node(n.left)}, {self.node(n.right)})"
        if isinstance(n, s.And):
            return f"AND({self.node(n.left)}, {self.node(n.right)})"
        if isinstance(n, s.Or):
            return f"OR({self.node(n.left)}, {self.node(n.right)})"
        if isinstance(n, s.Alternative):
            return f"ALT({self.node(n.left)}, {self.node(n.right)})"
        if isinstance(n, s.If):
            other = "ID" if n.else_ is None else self.node(n.else_)
            return f"IF({self.node(n.cond)}, {self.node(n.then)}, {other})"
        if isinstance(n, s.ArrayCons):
            return "K({})" if n.body is None else f"ARRAY({self.node(n.body)})"
        if isinstance(n, s.ObjectCons):
            entries = ", ".join(f"{{{self.node(e.key)}, {self.node(e.value)}}}" for e in n.entries)
            return f"OBJECT({{{entries}}})"
        if isinstance(n, s.Var):
            if n.name not in self.bound:
                raise self.refuse(f"${n.name} (a variable given from outside the object)")
            return f"VAR({lua_string(n.name)})"
        if isinstance(n, s.Bind):
            return self.bind(n)
        if isinstance(n, s.Reduce):
            if not isinstance(n.pattern, s.VarPattern):
                raise self.refuse("a destructuring pattern")
            source, init = self.node(n.source), self.node(n.init)
            update = self.scoped(n.pattern.name, n.update)
            return f"REDUCE({source}, {lua_string(n.pattern.name)}, {init}, {update})"
        if isinstance(n, s.StringInterp) and n.fmt is None:
            parts = ", ".join(
                lua_string(p) if isinstance(p, str) else self.node(p) for p in n.parts
            )
            return f"INTERP({{{parts}}})"
        if isinstance(n, s.Call):
            return self.call(n)
        raise self.refuse(_construct(n))

    def scoped(self, name: str, body: s.Node) -> str:
        had = name in self.bound
        self.bound.add(name)
        try:
            return self.node(body)
        finally:
            if not had:
                self.bound.discard(name)

    def bind(self, n: s.Bind) -> str:
        if len(n.patterns) != 1 or not isinstance(n.patterns[0], s.VarPattern):
            raise self.refuse("a destructuring pattern")
        name = n.patterns[0].name
        return f"BIND({self.node(n.source)}, {lua_string(name)}, {self.scoped(name, n.body)})"

    def call(self, n: s.Call) -> str:
        name, args = n.name, n.args
        if not args and name in _CONSTANTS:
            return _CONSTANTS[name]
        if name in NEEDS_STRING:
            self.needs_string = True
        if not args and name in _BUILTIN1:
            return f"MAP1(BUILTIN[{lua_string(name)}])"
        if len(args) == 1 and name in _BUILTIN2:
            return f"MAP2(BUILTIN2[{lua_string(name)}], {self.node(args[0])})"
        if name == "select" and len(args) == 1:
            return f"SELECT({self.node(args[0])})"
        if name in ("any", "all") and len(args) <= 2:
            every = _flag(name == "all")
            if len(args) == 2:
                return f"ANY({self.node(args[0])}, {self.node(args[1])}, {every})"
            cond = "ID" if not args else self.node(args[0])
            return f"ANY(ITER(ID, false), {cond}, {every})"
        if name == "map" and len(args) == 1:
            return f"MAP({self.node(args[0])})"
        if name == "first" and len(args) == 1:
            return f"FIRST({self.node(args[0])})"
        if name == "test" and len(args) == 1:
            return self.test(args[0])
        if name == "error" and len(args) <= 1:
            return "ERROR(nil)" if not args else f"ERROR({self.node(args[0])})"
        raise self.refuse(f"{name}/{len(args)}")

    def test(self, regex: s.Node) -> str:
        if not isinstance(regex, s.Literal) or not isinstance(regex.value, str):
            raise self.refuse("test/1 with a regular expression computed at run time")
        try:
            patterns = lua_patterns(regex.value)
        except RegexNotTranslatable as exc:
            raise self.refuse(f"test/1 of {regex.value!r} ({exc})") from None
        return "TEST({" + ", ".join(lua_string(p) for p in patterns) + "})"


def translate(expression: str) -> LuaFilter:
    """The Lua filter of a jq expression.

    Raises:
        NotTranslatable: the expression uses a construct outside the supported set.
        ExpressionError: the expression does not parse.
    """
    tree = parse(expression)
    costly = costly_constructs(tree)
    if costly:  # finite, but a fan-out or doubling would spend Argo CD's second on one object
        raise NotTranslatable(f"a construct of super-linear cost ({costly[0]})", expression)
    translator = _Translator(expression)
    code = translator.node(tree)
    return LuaFilter(code, translator.needs_string)


def lua_string(text: str) -> str:
    """A Lua string literal of ``text`` (bytes outside printable ASCII as escapes)."""
    out = []
    for byte in text.encode("utf-8"):
        char = chr(byte)
        if char in '"\\' or byte < 0x20 or byte > 0x7E:
            out.append(f"\\{byte:03d}")
        else:
            out.append(char)
    return '"' + "".join(out) + '"'


def lua_value(value: object) -> str:
    """A Lua constant of a JSON scalar (null is the runtime's NULL)."""
    if value is None:
        return "NULL"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, str):
        return lua_string(value)
    if isinstance(value, int | float):
        return json.dumps(value)
    raise TypeError(f"a jq constant is a JSON scalar, not {value!r}")


def _field_path(n: s.Node) -> list[str] | None:
    """The keys of ``.a.b.c`` (plain fields from the input, none optional), else None."""
    keys: list[str] = []
    while isinstance(n, s.Index):
        if n.optional or not isinstance(n.key, s.Literal) or not isinstance(n.key.value, str):
            return None
        keys.append(n.key.value)
        n = n.target
    return list(reversed(keys)) if isinstance(n, s.Identity) and keys else None


def _flag(value: bool) -> str:
    return "true" if value else "false"


def _construct(n: s.Node) -> str:
    names = {
        s.RecurseAll: "'..' (recursion)",
        s.FuncDef: "'def' (recursion)",
        s.Foreach: "foreach",
        s.Label: "label/break",
        s.Assign: "an assignment",
        s.Slice: "a slice",
        s.StringInterp: "a @format string",
        s.Format: "a @format",
    }
    return names.get(type(n), type(n).__name__)
