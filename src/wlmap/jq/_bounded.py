"""The size budget of an untrusted program's native evaluation (``Engine(isolated=True)``).

The deadline alone cannot stop what happens inside one Python operation: ``"x" * n``
doubled a few times, an array construction collecting a fan-out of millions of outputs,
``tojson`` or ``==`` on an array that shares itself at every level (``[.,.] | [.,.] | ...``
is tiny in memory but exponential as a tree), or a regular expression backtracking. So an
untrusted program is compiled with these variants instead of the plain operations: each
charges what it builds or traverses to the evaluation's budget (``Ctl.cells``) before or as
it does so, and regular expressions run in the ``regex`` engine with the time that is left.
The catalog's programs are trusted and compiled without them, so they pay nothing.

A cell is one JSON value (scalar, array element, object entry) or 8 characters of a string.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from wlmap.jq._arith import add
from wlmap.jq._builtins import ZERO_ARG, iterate
from wlmap.jq._builtins_args import ONE_ARG, join
from wlmap.jq._native_base import Ctl
from wlmap.jq._values import LimitHit

_CHARS_PER_CELL = 8
# A regular expression gets at least this long, so a pattern compiled just before the
# deadline can still match a short string.
_MIN_REGEX_SECONDS = 0.05


def shallow(v: Any) -> int:
    """The cells of a value's top level (what building it from its parts costs)."""
    t = type(v)
    if t is str:
        return 1 + len(v) // _CHARS_PER_CELL
    if t is list or t is dict:
        return 1 + len(v)
    return 1


def walk(v: Any, ctl: Ctl) -> Any:
    """Charge the whole tree of ``v`` (shared parts as often as they occur) and return it.

    Stops as soon as the budget is spent, so walking an exponentially shared value costs
    no more than the budget.
    """
    t = type(v)
    if t is not list and t is not dict:
        ctl.charge(shallow(v))
        return v
    left = ctl.cells
    stack = [v]
    while stack:
        x = stack.pop()
        t = type(x)
        if t is list:
            left -= 1 + len(x)
            if left < 0:
                break
            stack.extend(x)
        elif t is dict:
            left -= 1 + len(x)
            if left < 0:
                break
            stack.extend(x.values())
        elif t is str:
            left -= 1 + len(x) // _CHARS_PER_CELL
        else:
            left -= 1
    ctl.charge(ctl.cells - left)
    return v


def _is_container(v: Any) -> bool:
    return type(v) is list or type(v) is dict


def binary(name: str, op: Callable[[Any, Any], Any]) -> Callable[[Any, Any, Ctl], Any]:
    """``op`` charging its cost: deep comparisons walk their operands, array differences
    pay for every pair they compare, and results pay for their top level."""
    if name in ("==", "!=", "<", "<=", ">", ">="):

        def compared(a: Any, b: Any, ctl: Ctl) -> Any:
            if _is_container(a) or _is_container(b):
                walk(a, ctl)
                walk(b, ctl)
            return op(a, b)

        return compared

    def built(a: Any, b: Any, ctl: Ctl) -> Any:
        if type(a) is list and type(b) is list and name == "-":
            walk(a, ctl)
            walk(b, ctl)
            ctl.charge(len(a) * len(b))
        elif type(a) is dict and type(b) is dict and name == "*":
            walk(a, ctl)
            walk(b, ctl)
        out = op(a, b)
        ctl.charge(shallow(out))
        return out

    return built


def total(items: Any, ctl: Ctl) -> Any:
    """``add`` (and ``add(f)``) over outputs. Runs of strings are joined once and runs of
    arrays extend one new array (repeated concatenation would be quadratic), each piece
    paying for itself; any other sum pays for every intermediate result."""
    result: Any = None
    pieces: list[str] | None = None
    owned = False  # whether ``result`` is an array built here (safe to extend)
    for item in items:
        if type(item) is str and type(result) is str:
            if pieces is None:
                pieces = [result]
            pieces.append(item)
            ctl.charge(shallow(item))
            continue
        if pieces is not None:
            result, pieces = "".join(pieces), None
        if type(item) is list and type(result) is list:
            if not owned:
                result, owned = list(result), True
            result.extend(item)
            ctl.charge(shallow(item))
            continue
        result, owned = add(result, item), False
        ctl.charge(shallow(result))
    return result if pieces is None else "".join(pieces)


def _join(v: Any, sep: Any, ctl: Ctl) -> Any:
    """``join(sep)`` with every item and separator charged."""
    walk(v, ctl)
    return join(v, sep, lambda item: ctl.charge(shallow(item) + shallow(sep)))


# Builtins that traverse their whole input (its tree is walked first) or build a result
# (its top level is charged); the rest only look at the top of their input.
_DEEP_INPUT = frozenset(
    {"tojson", "tostring", "sort", "unique", "min", "max", "flatten", "fromjson", "contains"}
    | {"utf8bytelength"}
)
_CHEAP = frozenset(
    {"length", "not", "type", "first", "last", "floor", "sqrt", "has", "in", "error"}
    | {"startswith", "endswith"}
)


def zero_arg(name: str) -> Callable[[Any, Ctl], Any] | None:
    """The charged form of a zero-argument builtin (None when it has no native form)."""
    if name == "add":
        return lambda v, ctl: total(iterate(walk(v, ctl)), ctl)
    fn = ZERO_ARG.get(name)
    if fn is None:
        return None
    plain = fn
    if name in _CHEAP:
        return lambda v, ctl: plain(v)
    if name == "fromjson":  # builds a whole new tree from the text
        return lambda v, ctl: walk(plain(walk(v, ctl)), ctl)
    if name in _DEEP_INPUT:
        return lambda v, ctl: _charged(plain(walk(v, ctl)), ctl)
    return lambda v, ctl: _charged(plain(v), ctl)


def one_arg(name: str) -> Callable[[Any, Any, Ctl], Any] | None:
    """The charged form of a one-argument builtin (None when it has no native form)."""
    if name == "join":
        return _join
    fn = ONE_ARG.get(name)
    if fn is None:
        return None
    plain = fn
    if name in _CHEAP:
        return lambda v, a, ctl: plain(v, a)
    if name in _DEEP_INPUT:

        def deep(v: Any, a: Any, ctl: Ctl) -> Any:
            walk(v, ctl)
            walk(a, ctl)
            if type(v) is list and type(a) is list:
                ctl.charge(len(v) * len(a))
            return _charged(plain(v, a), ctl)

        return deep
    return lambda v, a, ctl: _charged(plain(v, a), ctl)


def _charged(out: Any, ctl: Ctl) -> Any:
    ctl.charge(shallow(out))
    return out


def render(fn: Callable[[Any], str]) -> Callable[[Any, Ctl], str]:
    """A string interpolation or format, walking containers before encoding them."""

    def rendered(v: Any, ctl: Ctl) -> str:
        if _is_container(v):
            walk(v, ctl)
        text = fn(v)
        ctl.charge(shallow(text))
        return text

    return rendered


def searcher(pattern: str) -> Callable[[str, Ctl], bool]:
    """``test(pattern)`` in the ``regex`` engine, stopped at the evaluation's deadline."""
    import regex  # noqa: PLC0415 - start-up cost: only untrusted programs use it (~15 ms)

    compiled = regex.compile(pattern)

    def search(text: str, ctl: Ctl) -> bool:
        seconds = max(ctl.deadline - time.monotonic(), _MIN_REGEX_SECONDS)
        try:
            # concurrent: the GIL is released while matching, so other threads (the
            # operator's event loop) keep running
            return compiled.search(text, timeout=seconds, concurrent=True) is not None
        except TimeoutError:
            raise LimitHit("a regular expression exceeded the evaluation's time limit") from None

    return search
