"""The parser builds the tree libjq would, with jq's precedence, and locates syntax errors."""

from __future__ import annotations

import pytest

from wlmap.errors import ExpressionError
from wlmap.jq import parse
from wlmap.jq import syntax as s

DOT = s.Identity()


def field(name: str, target: s.Node = DOT) -> s.Index:
    return s.Index(target, s.Literal(name))


def num(value: int) -> s.Literal:
    return s.Literal(value, str(value))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (".", DOT),
        ("..", s.RecurseAll()),
        (".a", field("a")),
        ('."a-b"', field("a-b")),
        ('.["a"]', field("a")),
        (".[0]", s.Index(DOT, num(0))),
        (".[1:3]", s.Slice(DOT, num(1), num(3))),
        (".[:3]", s.Slice(DOT, None, num(3))),
        (".[]", s.Iterate(DOT)),
        (".a[]?", s.Iterate(field("a"), optional=True)),
        ("(.a)?", s.Try(field("a"))),
        (".a.b", field("b", field("a"))),
        (".a.[0]", s.Index(field("a"), num(0))),
        ("$x", s.Var("x")),
        ("$__loc__", s.Loc(1)),
        ("null", s.Literal(None)),
        ('"a\\n\\u00e9"', s.Literal("a\né")),
        ('"x\\(.a)y"', s.StringInterp(("x", field("a"), "y"))),
        ('@base64 "\\(.)"', s.StringInterp((DOT,), "base64")),
        ("@json", s.Format("json")),
        ("[]", s.ArrayCons(None)),
        ("-.a", s.Neg(field("a"))),
        ("-.a.b?", s.Neg(s.Index(field("a"), s.Literal("b"), optional=True))),
        ("not", s.Call("not")),
        ("f(1; 2)", s.Call("f", (num(1), num(2)))),
        ("break $out", s.Break("out")),
    ],
)
def test_terms(text: str, expected: s.Node) -> None:
    assert parse(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1 + 2 * 3", s.Binary("+", num(1), s.Binary("*", num(2), num(3)))),
        ("1 - 2 - 3", s.Binary("-", s.Binary("-", num(1), num(2)), num(3))),
        ("1, 2 | 3", s.Pipe(s.Comma(num(1), num(2)), num(3))),
        ("1 | 2 | 3", s.Pipe(num(1), s.Pipe(num(2), num(3)))),
        ("1 // 2 // 3", s.Alternative(num(1), s.Alternative(num(2), num(3)))),
        ("1, 2 // 3", s.Comma(num(1), s.Alternative(num(2), num(3)))),
        (".a = 1 // 2", s.Alternative(s.Assign("=", field("a"), num(1)), num(2))),
        (".a |= 1 or 2", s.Assign("|=", field("a"), s.Or(num(1), num(2)))),
        ("1 or 2 and 3", s.Or(num(1), s.And(num(2), num(3)))),
        ("1 < 2 and 3", s.And(s.Binary("<", num(1), num(2)), num(3))),
        ("-1 * 2", s.Binary("*", s.Neg(num(1)), num(2))),
        ("- 1 as $x | 2", s.Bind(s.Neg(num(1)), (s.VarPattern("x"),), num(2))),
        ("1 + .a?", s.Binary("+", num(1), s.Index(DOT, s.Literal("a"), optional=True))),
        ("1, 2 as $x | 3", s.Comma(num(1), s.Bind(num(2), (s.VarPattern("x"),), num(3)))),
        ("try .a catch . + 1", s.Binary("+", s.Try(field("a"), DOT), num(1))),
        ("if . then 1 end | 2", s.Pipe(s.If(DOT, num(1), None), num(2))),
        (
            "if 1 then 2 elif 3 then 4 else 5 end",
            s.If(num(1), num(2), s.If(num(3), num(4), num(5))),
        ),
        (
            "reduce .[] as $x (0; 1) + 1",
            s.Binary("+", s.Reduce(s.Iterate(DOT), s.VarPattern("x"), num(0), num(1)), num(1)),
        ),
        ("def f: 1; f | 2", s.FuncDef("f", (), num(1), s.Pipe(s.Call("f"), num(2)))),
        ("label $l | 1, 2", s.Label("l", s.Comma(num(1), num(2)))),
    ],
)
def test_precedence(text: str, expected: s.Node) -> None:
    assert parse(text) == expected


def test_object_construction_forms() -> None:
    node = parse('{a, $x, "b": 1, (.k): .v, c: .d | .e, $__loc__}')
    assert node == s.ObjectCons((
        s.ObjectEntry(s.Literal("a"), field("a")),
        s.ObjectEntry(s.Literal("x"), s.Var("x")),
        s.ObjectEntry(s.Literal("b"), num(1)),
        s.ObjectEntry(field("k"), field("v")),
        s.ObjectEntry(s.Literal("c"), s.Pipe(field("d"), field("e"))),
        s.ObjectEntry(s.Literal("__loc__"), s.Loc(1)),
    ))  # fmt: skip


def test_destructuring_and_alternatives() -> None:
    node = parse(". as [$a, {b: $c, $d}] ?// $e | $a")
    assert isinstance(node, s.Bind)
    assert node.patterns == (
        s.ArrayPattern((
            s.VarPattern("a"),
            s.ObjectPattern((
                s.ObjectPatternEntry(s.Literal("b"), None, s.VarPattern("c")),
                s.ObjectPatternEntry(None, "d", None),
            )),
        )),
        s.VarPattern("e"),
    )  # fmt: skip


def test_function_definition_with_params() -> None:
    node = parse("def f(a; $b): a + $b; f(1; 2)")
    assert node == s.FuncDef(
        "f", ("a", "$b"), s.Binary("+", s.Call("a"), s.Var("b")), s.Call("f", (num(1), num(2)))
    )


def test_foreach_and_directives() -> None:
    node = parse('import "lib" as lib; include "other"; foreach .[] as $x (0; 1; 2)')
    assert isinstance(node, s.Directive)
    assert (node.kind, node.path, node.alias) == ("import", "lib", "lib")
    assert isinstance(node.body, s.Directive)
    assert node.body.body == s.Foreach(s.Iterate(DOT), s.VarPattern("x"), num(0), num(1), num(2))


@pytest.mark.parametrize(
    ("text", "where"),
    [
        (".a.", "line 1, column 3"),
        ("1 +", "line 1, column 4"),
        ("(1,)", "line 1, column 4"),
        ("1 == 2 == 3", "line 1, column 8"),
        (".a = 1 = 2", "line 1, column 8"),
        ('"abc', "line 1, column 1"),
        ('"\\q"', "line 1, column 2"),
        ("{a: }", "line 1, column 5"),
        (".a |\n  .b[", "line 2, column 6"),
        ("if . then 1", "line 1, column 12"),
    ],
)
def test_syntax_errors_give_position(text: str, where: str) -> None:
    with pytest.raises(ExpressionError, match="syntax error") as info:
        parse(text)
    assert where in str(info.value)


def test_deep_nesting_is_an_error_not_a_crash() -> None:
    with pytest.raises(ExpressionError, match="nested too deeply"):
        parse("(" * 2000 + "1" + ")" * 2000)
