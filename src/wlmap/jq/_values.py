"""jq value semantics on plain Python values: types, order, equality, arithmetic, JSON text.

Values are what ``json.loads`` produces. Numbers follow libjq as seen through the Python
binding: arithmetic is done on doubles and an integral result is an ``int``. Where libjq's
behaviour depends on something a plain Python value does not record (how a number was
spelt in its source, NaN, infinities, integers beyond 2**53 in arithmetic), the functions
here raise :class:`Unsupported` and the caller evaluates the program with libjq instead.
"""

from __future__ import annotations

import json
import math
from json.encoder import encode_basestring
from typing import Any

_SAFE_INT = 2**53
_MAX_PRINTED_INT = 10**16
_TRUNC_BYTES = 29


class Unsupported(Exception):
    """The native evaluator cannot reproduce libjq here; evaluate with libjq instead."""


class JqError(Exception):
    """A jq runtime error; ``value`` is the error value (usually a message string)."""

    def __init__(self, value: Any) -> None:
        super().__init__(value)
        self.value = value


class LimitHit(Exception):
    """An evaluation exceeded a hard limit; the message says which."""


def type_name(v: Any) -> str:
    """Return jq's name for the type of ``v``."""
    if v is None:
        return "null"
    if v is True or v is False:
        return "boolean"
    if isinstance(v, int | float):
        return "number"
    if isinstance(v, str):
        return "string"
    if isinstance(v, list):
        return "array"
    return "object"


def num(x: float) -> int | float:
    """Normalise a computed double the way the binding returns it (integral -> int)."""
    if not math.isfinite(x):
        raise Unsupported("NaN or infinite number")
    if x.is_integer():
        if x == 0 and math.copysign(1.0, x) < 0:
            return x  # keep -0.0: jq prints it as "-0"
        return int(x)
    return x


def is_number(v: Any) -> bool:
    """True for jq numbers (Python int or float, but not bool)."""
    return (type(v) is int) or (type(v) is float)


# -- JSON text ----------------------------------------------------------------------------
def number_text(v: int | float) -> str:
    """jq's text for a number, when it does not depend on how the number was spelt."""
    if type(v) is int:
        if -_MAX_PRINTED_INT < v < _MAX_PRINTED_INT:
            return str(v)
        raise Unsupported("large integer")
    if not math.isfinite(v) or (v == 0 and math.copysign(1.0, v) < 0):
        raise Unsupported("special float")
    text = repr(v)
    if "e" in text:
        raise Unsupported("float in exponent form")
    return text


def _encode(v: Any, out: list[str]) -> None:
    if v is None:
        out.append("null")
    elif v is True:
        out.append("true")
    elif v is False:
        out.append("false")
    elif type(v) is str:
        out.append(string_text(v))
    elif type(v) is int or type(v) is float:
        out.append(number_text(v))
    elif type(v) is list:
        out.append("[")
        for i, item in enumerate(v):
            if i:
                out.append(",")
            _encode(item, out)
        out.append("]")
    else:
        out.append("{")
        for i, (key, item) in enumerate(v.items()):
            if i:
                out.append(",")
            out.append(string_text(key))
            out.append(":")
            _encode(item, out)
        out.append("}")


def string_text(s: str) -> str:
    """A string as jq writes it in JSON (DEL is escaped, other non-ASCII is kept)."""
    text: str = encode_basestring(s)
    return text.replace("\x7f", "\\u007f") if "\x7f" in text else text


def tojson(v: Any) -> str:
    """Compact JSON text exactly as jq's ``tojson`` writes it."""
    if type(v) is str:
        return string_text(v)
    out: list[str] = []
    try:
        _encode(v, out)
    except RecursionError:
        raise Unsupported("value nested too deeply") from None
    return "".join(out)


def tostring(v: Any) -> str:
    """jq's ``tostring``: strings unchanged, anything else as JSON text."""
    return v if type(v) is str else tojson(v)


class _Enough(Exception):
    """The start of a value's JSON text is all an error message shows."""


class _Prefix(list[str]):
    """Collects JSON text and stops once it is longer than an error message shows, so
    describing a huge (or exponentially shared) value costs no more than a small one."""

    def __init__(self) -> None:
        super().__init__()
        self.length = 0

    def append(self, text: str) -> None:
        super().append(text)
        self.length += len(text)
        if self.length > _TRUNC_BYTES:
            raise _Enough


_CLOSERS: dict[type, str] = {list: "]", dict: "}", str: '"'}


def describe(v: Any) -> str:
    """``type (value)`` as jq writes a value in an error message, truncated like jq."""
    out = _Prefix()
    try:
        if type(v) is str:
            out.append(string_text(v))
        else:
            _encode(v, out)
        text = "".join(out)
    except _Enough:
        text = "".join(out)
        if type(v) not in _CLOSERS:  # a long number: its last digit is known only in full
            text = tojson(v)
    except (Unsupported, RecursionError):
        raise Unsupported("value in error message") from None
    data = text.encode()
    if len(data) > _TRUNC_BYTES:
        cut = data[: _TRUNC_BYTES - 4]
        text = cut.decode(errors="ignore") + "..." + _CLOSERS.get(type(v), text[-1])
    return f"{type_name(v)} ({text})"


# -- order and equality -------------------------------------------------------------------
def sort_key(v: Any) -> tuple[Any, ...]:
    """A key ordering values as jq does: null < false < true < numbers < strings < ..."""
    if v is None:
        return (0,)
    if v is False:
        return (1,)
    if v is True:
        return (2,)
    if type(v) is int:
        return (3, v)
    if type(v) is float:
        if math.isnan(v):
            raise Unsupported("NaN in comparison")
        return (3, v)
    if type(v) is str:
        return (4, v)
    if type(v) is list:
        return (5, tuple(sort_key(item) for item in v))
    if type(v) is not dict:
        raise Unsupported(f"{type(v).__name__} is not JSON data")
    keys = sorted(v)
    return (6, tuple(keys), tuple(sort_key(v[k]) for k in keys))


# The rank ``sort_key`` gives each JSON type; values of different ranks are never equal.
_RANKS: dict[type, int] = {
    type(None): 0,
    bool: 1,
    int: 3,
    float: 3,
    str: 4,
    list: 5,
    dict: 6,
}


def equal(a: Any, b: Any) -> bool:
    """jq equality (``1 == 1.0`` but ``true != 1``)."""
    ta, tb = type(a), type(b)
    if ta is tb and (ta is str or ta is int):
        return bool(a == b)
    ra, rb = _RANKS.get(ta), _RANKS.get(tb)
    if ra is not None and rb is not None and ra != rb:
        return False  # without building the keys of what may be a large object
    return sort_key(a) == sort_key(b)


def compare(a: Any, b: Any) -> int:
    """-1, 0 or 1 as jq orders ``a`` against ``b``."""
    ka, kb = sort_key(a), sort_key(b)
    return (ka > kb) - (ka < kb)


def truthy(v: Any) -> bool:
    """jq truth: everything but null and false."""
    return not (v is None or v is False)


def error_message(value: Any) -> str:
    """The message libjq's binding gives for an error value (JSON for non-strings)."""
    if type(value) is str:
        return value
    return json.dumps(fresh(value))


def fresh(v: Any) -> Any:
    """An output as libjq's binding returns it: a new value, integral numbers as int.

    Native evaluation shares structure with its input; outputs are copied so that a caller
    changing an output never changes the input (or another output), as with libjq.
    """
    t = type(v)
    if t is dict:
        return {k: fresh(x) for k, x in v.items()}
    if t is list:
        return [fresh(x) for x in v]
    if t is float and v.is_integer():
        return int(v)
    return v
