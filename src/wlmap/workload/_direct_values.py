"""What the generated direct readers call at run time: jq's operations on ordinary values.

Each does what jq does for the values it expects; for any other value (where jq would
raise an error, compare across kinds, or compare arrays or objects) it raises
:class:`Fallback`, and the reader hands the evaluation to the general one.
"""

from __future__ import annotations

import math
from typing import Any


class Fallback(Exception):
    """The value is not an ordinary case: evaluate with the general reader."""


def equal(a: Any, b: Any) -> bool:
    """jq's ``==`` for scalars (numbers by value, ``true`` is not ``1``)."""
    ta, tb = type(a), type(b)
    if ta is bool or tb is bool:
        return a is b
    if (ta is int or ta is float) and (tb is int or tb is float):
        return bool(a == b)
    if ta is not tb or ta is list or ta is dict:
        if ta is list or ta is dict or tb is list or tb is dict:
            raise Fallback
        return False
    return bool(a == b)


def number(a: Any) -> int | float:
    """``a`` when it is a number (ordering across kinds is left to the general reader)."""
    if type(a) is int or type(a) is float:
        return a
    raise Fallback


def length(a: Any) -> int | float:
    """jq's ``length`` of ordinary values."""
    if a is None:
        return 0
    if type(a) is str or type(a) is list or type(a) is dict:
        return len(a)
    raise Fallback


_SAFE_INT = 2**53


def plus(a: Any, b: Any) -> Any:
    """jq's ``+`` where it is plain: null and a value, or whole numbers (counts)."""
    if a is None:
        return b
    if b is None:
        return a
    if type(a) is int and type(b) is int and -_SAFE_INT < a + b < _SAFE_INT:
        return a + b
    raise Fallback


def add(a: Any) -> Any:
    """jq's ``add`` of an array of counts (null when empty)."""
    total = None
    for value in items(a, False):
        total = plus(total, value)
    return total


def extreme(a: Any, last: bool) -> Any:
    """jq's ``min`` (``max`` when ``last``) of an array of numbers (null when empty); the
    first smallest or the last largest, as jq keeps them."""
    if type(a) is not list:
        raise Fallback
    best: Any = None
    for index, item in enumerate(a):
        kind = type(item)
        if kind is not int and (kind is not float or math.isnan(item)):  # NaN has no order
            raise Fallback
        if not index or (item >= best if last else item < best):
            best = item
    return best


def items(a: Any, optional: bool) -> list[Any]:
    """What ``a[]`` (``a[]?`` when ``optional``) iterates over."""
    if type(a) is list:
        return a
    if type(a) is dict:
        return list(a.values())
    if optional:
        return []
    raise Fallback


# The names the generated readers use.
HELPERS = {
    "Fallback": Fallback,
    "equal": equal,
    "number": number,
    "length": length,
    "items": items,
    "plus": plus,
    "add": add,
    "extreme": extreme,
}
