"""Whether a jq program is a path expression, usable with ``path(...)`` and assignment.

A path expression only navigates: ``.``, ``.a``, ``.[i]``, ``.[i:j]``, ``.[]``, ``?``, and
pipes, commas, parentheses, ``if`` branches, ``select(...)``, ``empty``, ``getpath(...)``,
``first(P)`` and ``last(P)`` built from them. Anything that computes a new value
(literals, arithmetic, constructors, ``//``, variables, other functions) is read-only.
"""

from __future__ import annotations

from wlmap.jq import syntax as s

# Calls whose result is a path into their input; the flag says whether the argument must
# itself be a path expression (``first(P)``) or may be any expression (``select(c)``).
_PATH_CALLS: dict[tuple[str, int], bool] = {
    ("empty", 0): False,
    ("select", 1): False,
    ("getpath", 1): False,
    ("first", 0): False,
    ("last", 0): False,
    ("first", 1): True,
    ("last", 1): True,
}
_DESCRIPTIONS: dict[type[s.Node], str] = {
    s.Literal: "a literal",
    s.StringInterp: "a string",
    s.Format: "a format",
    s.Neg: "negation",
    s.Binary: "arithmetic or comparison",
    s.And: "'and'",
    s.Or: "'or'",
    s.Alternative: "the alternative operator '//'",
    s.Assign: "an assignment",
    s.ArrayCons: "array construction",
    s.ObjectCons: "object construction",
    s.Var: "a variable",
    s.Loc: "$__loc__",
    s.Bind: "an 'as' binding",
    s.Reduce: "reduce",
    s.Foreach: "foreach",
    s.FuncDef: "a function definition",
    s.Label: "label",
    s.Break: "break",
    s.Directive: "a directive",
    s.RecurseAll: "'..'",
}


def path_problems(node: s.Node) -> list[str]:
    """List why a program is not a path expression (empty when it is one)."""
    problems: list[str] = []
    _check(node, problems)
    return problems


def _check(node: s.Node, problems: list[str]) -> None:
    if isinstance(node, s.Identity):
        return
    if isinstance(node, s.Index | s.Slice | s.Iterate):
        _check(node.target, problems)
        return
    if isinstance(node, s.Try):
        _check(node.body, problems)
        if node.handler is not None:
            problems.append("try ... catch is read-only (its handler makes new values)")
        return
    if isinstance(node, s.Pipe | s.Comma):
        _check(node.left, problems)
        _check(node.right, problems)
        return
    if isinstance(node, s.If):
        _check(node.then, problems)
        _check(node.else_ or s.Identity(), problems)
        return
    if isinstance(node, s.Call):
        needs_path = _PATH_CALLS.get((node.name, len(node.args)))
        if needs_path is None:
            problems.append(f"{node.name}/{len(node.args)} is read-only (not a path expression)")
        elif needs_path:
            _check(node.args[0], problems)
        return
    what = _DESCRIPTIONS.get(type(node), type(node).__name__)
    problems.append(f"{what} is read-only (not a path expression)")
