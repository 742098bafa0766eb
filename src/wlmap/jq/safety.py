"""Static safety check of a jq program before it runs.

A program is unsafe if it can read anything but its input (environment, files, other
inputs, its own location), write anywhere but its output (stderr, halting the process), or
run without a bound (infinite or explosive generators, recursive functions). Assignments
are read-only violations unless explicitly allowed. The walk visits every node, including
function bodies, object keys, string interpolations and patterns, so nothing can hide.
"""

from __future__ import annotations

from collections.abc import Iterator

from wlmap.jq import syntax as s

# name -> why; any arity is blocked.
_BLOCKED_CALLS: dict[str, str] = {
    "env": "reads the environment",
    "input": "reads other inputs",
    "inputs": "reads other inputs",
    "input_filename": "reads the input file name",
    "input_line_number": "reads the input position",
    "debug": "writes to stderr",
    "stderr": "writes to stderr",
    "halt": "stops the process",
    "halt_error": "stops the process",
    "get_search_list": "reads the module search path",
    "get_prog_origin": "reads the program location",
    "get_jq_origin": "reads the jq location",
    "modulemeta": "reads modules from disk",
    "input_line": "reads other inputs",
    # A view must depend only on the objects it is computed from (decision 12): ages are
    # differences of the objects' own timestamps, never of the clock.
    "now": "reads the clock",
    "localtime": "depends on the local time zone",
    "strflocaltime": "depends on the local time zone",
    "repeat": "is an unbounded generator",
    "recurse": "is an unbounded generator",
    "recurse_down": "is an unbounded generator",
    "range": "is an unbounded generator",
    "while": "is an unbounded generator",
    "until": "can loop forever",
    "limit": "exists only to bound unbounded generators",
    "walk": "recurses through the whole input",
    "paths": "recurses through the whole input",
    "leaf_paths": "recurses through the whole input",
    "combinations": "is an explosive generator",
    "tostream": "recurses through the whole input",
}
_BLOCKED_VARS: dict[str, str] = {
    "ENV": "reads the environment",
    "__prog_args": "reads the program arguments",
    "__prog_name": "reads the program name",
}
_WRITES: frozenset[str] = frozenset({"del", "delpaths", "setpath"})


def unsafe_constructs(node: s.Node, *, allow_assignment: bool = False) -> list[str]:
    """List every unsafe construct in a program (empty when it is safe to run).

    Args:
        node: the parsed program.
        allow_assignment: accept assignment operators and ``del``/``setpath``/``delpaths``.

    Returns:
        One human-readable message per offending construct, each naming it.
    """
    problems: list[str] = []
    for current in s.walk(node):
        problems.extend(_check(current, allow_assignment))
    problems.extend(_recursive_definitions(node))
    return problems


def _check(node: s.Node, allow_assignment: bool) -> Iterator[str]:
    if isinstance(node, s.Call):
        reason = _BLOCKED_CALLS.get(node.name)
        if reason is not None:
            yield f"{node.name}/{len(node.args)} {reason}"
        elif node.name in _WRITES and not allow_assignment:
            yield f"{node.name}/{len(node.args)} modifies data (assignment is not allowed)"
    elif isinstance(node, s.Var) and node.name in _BLOCKED_VARS:
        yield f"${node.name} {_BLOCKED_VARS[node.name]}"
    elif isinstance(node, s.Loc):
        yield "$__loc__ reads the program location"
    elif isinstance(node, s.RecurseAll):
        yield ".. recurses through the whole input"
    elif isinstance(node, s.Directive):
        yield f"{node.kind} directive loads code or data from files"
    elif isinstance(node, s.Assign) and not allow_assignment:
        yield f"assignment '{node.op}' modifies data (assignment is not allowed)"
    elif isinstance(node, s.FuncDef) and node.name in _BLOCKED_CALLS:
        yield f"def {node.name} redefines a blocked builtin"


def _recursive_definitions(node: s.Node) -> list[str]:
    """Report functions that call themselves, directly or through other functions.

    Calls are resolved by name among the program's own definitions; a definition that
    shares a name with another is treated as the same function, which can only report too
    much, never too little.
    """
    calls: dict[str, set[str]] = {}
    for current in s.walk(node):
        if isinstance(current, s.FuncDef):
            called = calls.setdefault(current.name, set())
            called.update(c.name for c in s.walk(current.body) if isinstance(c, s.Call))
    problems = []
    for name in sorted(calls):
        if _reaches(name, name, calls):
            problems.append(f"def {name} is recursive and may never terminate")
    return problems


def _reaches(start: str, goal: str, calls: dict[str, set[str]]) -> bool:
    seen: set[str] = set()
    stack = list(calls.get(start, ()))
    while stack:
        name = stack.pop()
        if name == goal:
            return True
        if name in seen or name not in calls:
            continue
        seen.add(name)
        stack.extend(calls[name])
    return False
