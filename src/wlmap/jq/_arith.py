"""jq's arithmetic operators and negation on plain Python values."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from wlmap.jq._values import JqError, LimitHit, Unsupported, describe, equal, num

_SAFE_INT = 2**53
_INTMAX = 2**63
# Longest string that ``string * n`` may build natively.
MAX_REPEAT_CHARS = 8 * 1024 * 1024


def _fail(a: Any, b: Any, verb: str) -> JqError:
    return JqError(f"{describe(a)} and {describe(b)} cannot be {verb}")


def _isnum(v: Any) -> bool:
    return type(v) is int or type(v) is float


def add(a: Any, b: Any) -> Any:
    """``a + b``."""
    ta, tb = type(a), type(b)
    if ta is int and tb is int:
        r = a + b
        return r if -_SAFE_INT < r < _SAFE_INT else num(float(a) + float(b))
    if a is None:
        return b
    if b is None:
        return a
    if _isnum(a) and _isnum(b):
        return num(float(a) + float(b))
    if ta is tb:
        if ta is str or ta is list:
            return a + b
        if ta is dict:
            merged = dict(a)
            merged.update(b)
            return merged
    raise _fail(a, b, "added")


def subtract(a: Any, b: Any) -> Any:
    """``a - b``."""
    if type(a) is int and type(b) is int:
        r = a - b
        return r if -_SAFE_INT < r < _SAFE_INT else num(float(a) - float(b))
    if _isnum(a) and _isnum(b):
        return num(float(a) - float(b))
    if type(a) is list and type(b) is list:
        return [x for x in a if not any(equal(x, y) for y in b)]
    raise _fail(a, b, "subtracted")


def _deep_merge(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    merged = dict(a)
    for key, value in b.items():
        old = merged.get(key)
        if type(old) is dict and type(value) is dict:
            merged[key] = _deep_merge(old, value)
        else:
            merged[key] = value
    return merged


def _repeat(text: str, times: Any) -> Any:
    if math.isnan(times) or times < 0:
        if math.isnan(times) or times <= -1:
            return None
        raise Unsupported("negative fraction repeat count")
    count = int(times)
    if len(text) * count > MAX_REPEAT_CHARS:
        raise LimitHit(f"string repetition would exceed {MAX_REPEAT_CHARS} characters")
    return text * count


def multiply(a: Any, b: Any) -> Any:
    """``a * b``."""
    if type(a) is int and type(b) is int:
        r = a * b
        return r if -_SAFE_INT < r < _SAFE_INT else num(float(a) * float(b))
    if _isnum(a) and _isnum(b):
        return num(float(a) * float(b))
    if type(a) is str and _isnum(b):
        return _repeat(a, b)
    if _isnum(a) and type(b) is str:
        return _repeat(b, a)
    if type(a) is dict and type(b) is dict:
        return _deep_merge(a, b)
    raise _fail(a, b, "multiplied")


def split_string(text: str, sep: str) -> list[str]:
    """``text / sep`` for strings (an empty string splits into nothing)."""
    if not text:
        return []
    if not sep:
        return list(text)
    return text.split(sep)


def divide(a: Any, b: Any) -> Any:
    """``a / b``."""
    if _isnum(a) and _isnum(b):
        if b == 0:
            raise JqError(
                f"{describe(a)} and {describe(b)} cannot be divided because the divisor is zero"
            )
        return num(float(a) / float(b))
    if type(a) is str and type(b) is str:
        return split_string(a, b)
    raise _fail(a, b, "divided")


def modulo(a: Any, b: Any) -> Any:
    """``a % b``: both operands truncated to integers, C remainder semantics."""
    if not (_isnum(a) and _isnum(b)):
        raise _fail(a, b, "divided (remainder)")
    for value in (a, b):
        if math.isnan(value) or not -_INTMAX < value < _INTMAX:
            raise Unsupported("remainder outside the integer range")
    ia, ib = int(a), int(b)
    if ib == 0:
        raise JqError(
            f"{describe(a)} and {describe(b)} cannot be divided (remainder) "
            "because the divisor is zero"
        )
    r = abs(ia) % abs(ib)
    return -r if ia < 0 else r


def negate(v: Any) -> Any:
    """``-v``."""
    if type(v) is int:
        return -v if -_SAFE_INT < v < _SAFE_INT else num(-float(v))
    if type(v) is float:
        return num(-v)
    raise JqError(f"{describe(v)} cannot be negated")


BINARY: dict[str, Callable[[Any, Any], Any]] = {
    "+": add,
    "-": subtract,
    "*": multiply,
    "/": divide,
    "%": modulo,
}
