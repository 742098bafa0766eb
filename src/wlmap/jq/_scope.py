"""Which ``$variables`` a program reads from outside (its free variables)."""

from __future__ import annotations

from wlmap.jq import syntax as s


def free_variables(node: s.Node) -> tuple[str, ...]:
    """Names (without ``$``) the program reads but does not bind itself, sorted."""
    found: set[str] = set()
    _visit(node, frozenset(), found)
    return tuple(sorted(found))


def pattern_names(pattern: s.Node) -> set[str]:
    """Every variable a destructuring pattern binds."""
    names: set[str] = set()
    for part in s.walk(pattern):
        if isinstance(part, s.VarPattern):
            names.add(part.name)
        elif isinstance(part, s.ObjectPatternEntry) and part.bind is not None:
            names.add(part.bind)
    return names


def _visit(node: s.Node, bound: frozenset[str], found: set[str]) -> None:
    if isinstance(node, s.Var):
        if node.name not in bound:
            found.add(node.name)
        return
    if isinstance(node, s.Bind):
        _visit(node.source, bound, found)
        inner = bound.union(*(pattern_names(p) for p in node.patterns))
        for pattern in node.patterns:
            _visit(pattern, inner, found)
        _visit(node.body, inner, found)
        return
    if isinstance(node, s.Reduce | s.Foreach):
        _visit(node.source, bound, found)
        _visit(node.init, bound, found)
        inner = bound | pattern_names(node.pattern)
        _visit(node.pattern, inner, found)
        _visit(node.update, inner, found)
        if isinstance(node, s.Foreach) and node.extract is not None:
            _visit(node.extract, inner, found)
        return
    if isinstance(node, s.FuncDef):
        params = {p[1:] for p in node.params if p.startswith("$")}
        _visit(node.body, bound | params, found)
        _visit(node.rest, bound, found)
        return
    for child in node.children():
        _visit(child, bound, found)
