"""Static warnings about constructs whose cost grows faster than their input.

Such a program is not unsafe (evaluation is bounded, see ``Limits``), but on a large
object it may hit the bounds and leave part of a view empty, so ``wlmap validate``
points at it. The checks are heuristics over the syntax tree, made to catch the shapes
that blow up (and to stay quiet on the catalog's definitions):

- fan-out multiplied along a pipeline (``[.[]?, .[]?] | [.[]?, .[]?] | ...``, ``[., .]``
  nested): each stage multiplies the size of what the next one sees;
- iterations nested in bindings (``.[] as $a | .[] as $b | .[] as $c``): n^3 steps;
- a value added to itself again and again (``. + . | . + .``), or a string repeated a
  large literal number of times (``"a" * 1e8``);
- a function of the program applied to its own output (``def f: [., .]; f | f | f``);
- regular expressions that can backtrack exponentially: a repeated group that itself
  repeats or alternates (``(a+)+``, ``(a|aa)+``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from wlmap.jq import syntax as s

# Warn when a pipeline's stages multiply sizes by at least this much.
FAN_OUT_WARNING = 64
# Warn at this many nested iterating bindings (n^3 steps).
NESTED_ITERATIONS_WARNING = 3
# Warn at this many self-additions (2^n growth), and at string repetition this large.
DOUBLINGS_WARNING = 3
REPETITION_WARNING = 10_000

_REGEX_CALLS = frozenset({"test", "match", "capture", "scan", "split", "splits", "sub", "gsub"})
_STRING_MAKERS = frozenset({"tostring", "tojson", "ascii_downcase", "ascii_upcase", "join"})


def costly_constructs(node: s.Node) -> list[str]:
    """One message per construct with super-linear cost (empty when none is found)."""
    found: list[str] = []
    for part in s.walk(node):
        found.extend(_local(part))
    fan = _worst_fan_out(node)
    if fan >= FAN_OUT_WARNING:
        found.append(
            f"fan-out multiplied along a pipeline: each stage multiplies the size of the "
            f"next one's input, up to {fan:,} times"
        )
    depth = _iteration_depth(node)
    if depth >= NESTED_ITERATIONS_WARNING:
        found.append(f"{depth} nested iterating bindings: n^{depth} steps on n values")
    doublings = sum(1 for p in s.walk(node) if _doubles(p))
    if doublings >= DOUBLINGS_WARNING:
        found.append(f"a value added to itself {doublings} times: its size grows 2^{doublings}")
    found.extend(_self_applied(node))
    return list(dict.fromkeys(found))


def _local(node: s.Node) -> Iterator[str]:
    if isinstance(node, s.Call) and node.name in _REGEX_CALLS and node.args:
        pattern = node.args[0]
        if (
            isinstance(pattern, s.Literal)
            and isinstance(pattern.value, str)
            and backtracking_prone(pattern.value)
        ):
            yield (
                f"regular expression {pattern.value!r} in {node.name}/{len(node.args)} can "
                "backtrack exponentially (a repeated group that itself repeats or alternates)"
            )
    if isinstance(node, s.Binary) and node.op == "*":
        for count, other in ((node.left, node.right), (node.right, node.left)):
            if (
                isinstance(count, s.Literal)
                and isinstance(count.value, int | float)
                and not isinstance(count.value, bool)
                and count.value >= REPETITION_WARNING
                and _makes_string(other)
            ):
                yield f"a string repeated {count.value:g} times"


def _makes_string(node: s.Node) -> bool:
    if isinstance(node, s.Literal):
        return isinstance(node.value, str)
    if isinstance(node, s.StringInterp):
        return True
    if isinstance(node, s.Pipe):
        return _makes_string(node.right)
    return isinstance(node, s.Call) and node.name in _STRING_MAKERS


def _doubles(node: s.Node) -> bool:
    return isinstance(node, s.Binary) and node.op in ("+", "*") and node.left == node.right


def _stages(node: s.Node) -> list[s.Node]:
    if isinstance(node, s.Pipe):
        return _stages(node.left) + _stages(node.right)
    if isinstance(node, s.Bind):
        return [node.source, *_stages(node.body)]
    return [node]


def _branches(node: s.Node) -> list[s.Node]:
    if isinstance(node, s.Comma):
        return _branches(node.left) + _branches(node.right)
    return [node]


def _multiplier(stage: s.Node, defs: dict[str, s.Node]) -> int:
    """How many times a stage can multiply the size of its input: the branches of the
    array (or stream) it builds from that input."""
    if isinstance(stage, s.Call) and not stage.args and stage.name in defs:
        return _multiplier(defs[stage.name], defs)
    body = stage.body if isinstance(stage, s.ArrayCons) else stage
    if body is None:
        return 1
    branches = _branches(body)
    return len(branches) if len(branches) > 1 else 1


def _worst_fan_out(node: s.Node) -> int:
    defs = {d.name: d.body for d in s.walk(node) if isinstance(d, s.FuncDef) and not d.params}
    worst = 1
    for part in s.walk(node):
        if isinstance(part, s.Pipe | s.Bind):
            product = 1
            for stage in _stages(part):
                product *= _multiplier(stage, defs)
                if product >= 2**62:
                    break
            worst = max(worst, product)
    return worst


def _streams(node: s.Node) -> bool:
    """Whether a node may output one value per element of something (an iteration not
    collected into an array, a reduction or a call's argument)."""
    if isinstance(node, s.Iterate):
        return True
    if isinstance(node, s.ArrayCons | s.Reduce | s.Literal | s.FuncDef):
        return isinstance(node, s.FuncDef) and _streams(node.rest)
    if isinstance(node, s.Call):
        return False
    return any(_streams(child) for child in node.children())


def _iteration_depth(node: s.Node) -> int:
    """The most iterating bindings (``SOURCE as $x | ...`` whose source iterates) found
    one inside the other."""
    if isinstance(node, s.Bind | s.Reduce | s.Foreach):
        own = 1 if _streams(node.source) else 0
        inner = [node.body] if isinstance(node, s.Bind) else [node.update]
        return own + max((_iteration_depth(i) for i in inner), default=0)
    return max((_iteration_depth(c) for c in node.children()), default=0)


def _self_applied(node: s.Node) -> Iterator[str]:
    defs = {d.name for d in s.walk(node) if isinstance(d, s.FuncDef)}
    if not defs:
        return
    inner = {
        id(child)
        for part in s.walk(node)
        if isinstance(part, s.Pipe)
        for child in (part.left, part.right)
        if isinstance(child, s.Pipe)
    }
    for part in s.walk(node):
        if isinstance(part, s.Pipe) and id(part) not in inner:
            stages = _stages(part)
            for name in sorted(defs):
                count = sum(1 for st in stages if isinstance(st, s.Call) and st.name == name)
                if count >= 2:
                    yield (
                        f"def {name} applied to its own output {count} times: if it grows "
                        "its input, the cost multiplies with each application"
                    )


_QUANTIFIER = re.compile(r"[*+]|\{\d*,\d*\}")


def backtracking_prone(pattern: str) -> bool:
    """Whether a pattern repeats a group that itself repeats or alternates."""
    starts: list[tuple[int, bool]] = []  # group start, and whether it repeats/alternates
    i = 0
    while i < len(pattern):
        char = pattern[i]
        if char == "\\":
            i += 2
            continue
        if char == "[":  # a character class: its contents are literal
            end = pattern.find("]", i + 2)
            i = len(pattern) if end < 0 else end + 1
            continue
        if char == "(":
            starts.append((i, False))
        elif char == ")" and starts:
            _, risky = starts.pop()
            repeated = _QUANTIFIER.match(pattern, i + 1) is not None
            if repeated and risky:
                return True
            if starts and (risky or repeated):
                starts[-1] = (starts[-1][0], True)
        elif starts and (char in "|*+" or (char == "{" and _QUANTIFIER.match(pattern, i))):
            starts[-1] = (starts[-1][0], True)
        i += 1
    return False
