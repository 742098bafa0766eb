"""Primary terms of the jq grammar: literals, constructors, calls and keyword forms."""

from __future__ import annotations

from typing import TYPE_CHECKING

from wlmap.jq import syntax as s
from wlmap.jq._lexer import KEYWORDS

if TYPE_CHECKING:
    from wlmap.jq._parser import _Parser

_CONSTANTS: dict[str, bool | None] = {"null": None, "true": True, "false": False}


def primary(p: _Parser) -> s.Node:
    """Parse one primary term at the parser's position."""
    token = p.tok
    kind = token.kind
    if kind == ".":
        p.advance()
        if p.tok.kind in ("STRING", "FORMAT"):
            return s.Index(s.Identity(), p.string())
        return s.Identity()
    if kind == "..":
        p.advance()
        return s.RecurseAll()
    if kind == "FIELD":
        p.advance()
        return s.Index(s.Identity(), s.Literal(token.text[1:]))
    if kind == "NUMBER":
        p.advance()
        return _number(token.text)
    if kind == "STRING":
        return p.string()
    if kind == "FORMAT":
        if p.peek().kind == "STRING":
            return p.string()
        p.advance()
        return s.Format(token.text[1:])
    if kind == "(":
        p.advance()
        inner = p.pipe()
        p.expect(")")
        return inner
    if kind == "[":
        p.advance()
        if p.tok.kind == "]":
            p.advance()
            return s.ArrayCons(None)
        body = p.pipe()
        p.expect("]")
        return s.ArrayCons(body)
    if kind == "{":
        return _object(p)
    if kind == "BINDING":
        p.advance()
        return s.Var(token.text[1:])
    if kind == "LOC":
        p.advance()
        return s.Loc(p.text.count("\n", 0, token.pos) + 1)
    if kind == "IDENT":
        return _call(p)
    if kind == "break":
        p.advance()
        return s.Break(p.expect("BINDING").text[1:])
    if kind == "if":
        return _if(p)
    if kind == "try":
        return _try(p)
    if kind in ("reduce", "foreach"):
        return _fold(p)
    raise p.error()


def _number(text: str) -> s.Literal:
    if text.isdigit():
        return s.Literal(int(text), text)
    value = float(text)
    if value.is_integer() and abs(value) < 2**63:
        return s.Literal(int(value), text)
    return s.Literal(value, text)


def _call(p: _Parser) -> s.Node:
    name = p.advance().text
    if name in _CONSTANTS and p.tok.kind != "(":
        return s.Literal(_CONSTANTS[name])
    args: list[s.Node] = []
    if p.tok.kind == "(":
        p.advance()
        args.append(p.pipe())
        while p.tok.kind == ";":
            p.advance()
            args.append(p.pipe())
        p.expect(")")
    return s.Call(name, tuple(args))


def _if(p: _Parser, keyword: str = "if") -> s.Node:
    # An ``elif`` is an ``if`` nested in the else branch that shares the single ``end``.
    p.expect(keyword)
    cond = p.pipe()
    p.expect("then")
    then = p.pipe()
    if p.tok.kind == "elif":
        return s.If(cond, then, _if(p, "elif"))
    else_: s.Node | None = None
    if p.tok.kind == "else":
        p.advance()
        else_ = p.pipe()
    p.expect("end")
    return s.If(cond, then, else_)


def _try(p: _Parser) -> s.Node:
    p.expect("try")
    # Body and handler are postfix terms: a following ``as`` binds the whole ``try``
    # (``try . as $v | .a`` is ``(try .) as $v | .a``, as libjq reads it).
    body = p.postfix(allow_bind=False)
    handler = None
    if p.tok.kind == "catch":
        p.advance()
        handler = p.postfix(allow_bind=False)
    return s.Try(body, handler)


def _fold(p: _Parser) -> s.Node:
    keyword = p.advance().kind
    # The source is an expression without ',' or '|' whose own ``as`` is the fold's.
    saved, p.no_bind_level = p.no_bind_level, p.pipe_level
    try:
        source = p.alternative()
    finally:
        p.no_bind_level = saved
    p.expect("as")
    pattern = p.pattern()
    p.expect("(")
    init = p.pipe()
    p.expect(";")
    update = p.pipe()
    if keyword == "reduce":
        p.expect(")")
        return s.Reduce(source, pattern, init, update)
    extract = None
    if p.tok.kind == ";":
        p.advance()
        extract = p.pipe()
    p.expect(")")
    return s.Foreach(source, pattern, init, update, extract)


def _object(p: _Parser) -> s.Node:
    p.expect("{")
    entries: list[s.ObjectEntry] = []
    while p.tok.kind != "}":
        entries.append(_entry(p))
        if p.tok.kind != ",":
            break
        p.advance()
    p.expect("}")
    return s.ObjectCons(tuple(entries))


def _entry(p: _Parser) -> s.ObjectEntry:
    token = p.tok
    kind = token.kind
    key: s.Node
    if kind == "BINDING":
        p.advance()
        name = token.text[1:]
        if p.tok.kind == ":":
            p.advance()
            return s.ObjectEntry(s.Var(name), _value(p))
        return s.ObjectEntry(s.Literal(name), s.Var(name))
    if kind == "LOC":
        p.advance()
        return s.ObjectEntry(s.Literal("__loc__"), s.Loc(p.text.count("\n", 0, token.pos) + 1))
    if kind == "IDENT" or kind in KEYWORDS:
        p.advance()
        key = s.Literal(token.text)
    elif kind in ("STRING", "FORMAT") and (kind == "STRING" or p.peek().kind == "STRING"):
        key = p.string()
    elif kind == "(":
        p.advance()
        key = p.pipe()
        p.expect(")")
        p.expect(":")
        return s.ObjectEntry(key, _value(p))
    else:
        raise p.error()
    if p.tok.kind == ":":
        p.advance()
        return s.ObjectEntry(key, _value(p))
    return s.ObjectEntry(key, s.Index(s.Identity(), key))


def _value(p: _Parser) -> s.Node:
    # An object value is a pipe without commas: ``{a: .b | .c, d: 1}``.
    left = p.alternative()
    if p.tok.kind == "|":
        p.advance()
        return s.Pipe(left, _value(p))
    return left
