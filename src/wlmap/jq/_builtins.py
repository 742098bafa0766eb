"""jq's indexing and zero-argument builtins on plain Python values, with libjq's errors."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from typing import Any

from wlmap.jq._arith import add
from wlmap.jq._dates import fromdateiso8601, gmtime, mktime, todateiso8601
from wlmap.jq._values import (
    JqError,
    Unsupported,
    describe,
    equal,
    is_number,
    num,
    sort_key,
    tojson,
    tostring,
    truthy,
    type_name,
)

_INT_MAX = 2**31 - 1


# -- indexing -----------------------------------------------------------------------------
def index_value(t: Any, k: Any) -> Any:
    """``t[k]`` for one target and one key."""
    tt = type(t)
    if tt is dict:
        if type(k) is str:
            return t.get(k)
    elif t is None:
        if type(k) is str or is_number(k) or type(k) is dict:
            return None
    elif tt is list:
        if is_number(k):
            if math.isnan(k):
                return None
            index = int(max(min(k, _INT_MAX), -_INT_MAX))
            if index < 0:
                index += len(t)
            return t[index] if 0 <= index < len(t) else None
        if type(k) is list or type(k) is dict:
            raise Unsupported("array index by array or object")
    raise JqError(f"Cannot index {type_name(t)} with {describe(k)}")


def slice_value(t: Any, start: Any, end: Any) -> Any:
    """``t[start:end]`` for one target and one pair of bounds."""
    if t is None:
        return None
    tt = type(t)
    if tt is not list and tt is not str:
        bounds = {"start": start, "end": end}
        raise JqError(f"Cannot index {type_name(t)} with {describe(bounds)}")
    if not (start is None or is_number(start)) or not (end is None or is_number(end)):
        raise JqError("Array/string slice indices must be integers")
    size = len(t)
    s = 0.0 if start is None else float(start)
    e = float(size) if end is None else float(end)
    if math.isnan(s) or math.isnan(e):
        raise Unsupported("NaN slice bound")
    if s < 0:
        s += size
    if e < 0:
        e += size
    s = min(max(s, 0.0), float(size))
    e = min(max(e, 0.0), float(size))
    first, last = int(s), math.ceil(e)
    return t[first : max(first, last)]


def iterate(t: Any) -> list[Any]:
    """``t[]``: the values of an array or object."""
    if type(t) is list:
        return t
    if type(t) is dict:
        return list(t.values())
    raise JqError(f"Cannot iterate over {describe(t)}")


def has(t: Any, k: Any) -> bool:
    """``has(k)``."""
    if type(t) is dict and type(k) is str:
        return k in t
    if type(t) is list and is_number(k):
        if not float(k).is_integer():
            raise Unsupported("fractional array index in has")
        return bool(0 <= k < len(t))
    if t is None:
        return False
    raise JqError(f"Cannot check whether {type_name(t)} has a {type_name(k)} key")


# -- zero-argument builtins ----------------------------------------------------------------
def length(v: Any) -> Any:
    """``length``."""
    if v is None:
        return 0
    if type(v) is int:
        return abs(v)
    if type(v) is float:
        return num(abs(v))
    if type(v) in (str, list, dict):
        return len(v)
    raise JqError(f"{describe(v)} has no length")


def utf8bytelength(v: Any) -> int:
    """``utf8bytelength``."""
    if type(v) is not str:
        raise JqError(f"{describe(v)} only strings have UTF-8 byte length")
    return len(v.encode("utf-8", "surrogatepass"))


def keys_unsorted(v: Any) -> list[Any]:
    """``keys_unsorted``."""
    if type(v) is dict:
        return list(v)
    if type(v) is list:
        return list(range(len(v)))
    raise JqError(f"{describe(v)} has no keys")


def keys(v: Any) -> list[Any]:
    """``keys`` (object keys sorted by code point)."""
    found = keys_unsorted(v)
    return sorted(found) if type(v) is dict else found


def to_entries(v: Any) -> list[Any]:
    """``to_entries``."""
    return [{"key": k, "value": index_value(v, k)} for k in keys_unsorted(v)]


def from_entries(v: Any) -> dict[str, Any]:
    """``from_entries`` as jq 1.8 defines it (``key``/``Key``/``name``/``Name``)."""
    result: dict[str, Any] = {}
    for entry in iterate(v):
        key = None
        for name in ("key", "Key", "name", "Name"):
            key = index_value(entry, name)
            if truthy(key):
                break
        value = index_value(entry, "value" if has(entry, "value") else "Value")
        if type(key) is not str:
            raise JqError(f"Cannot use {describe(key)} as object key")
        result[key] = value
    return result


def add_all(v: Any) -> Any:
    """``add``."""
    total = None
    for item in iterate(v):
        total = add(total, item)
    return total


def sort_array(v: Any) -> list[Any]:
    """``sort``."""
    if type(v) is not list:
        raise JqError(f"{describe(v)} cannot be sorted, as it is not an array")
    return sorted(v, key=sort_key)


def unique(v: Any) -> list[Any]:
    """``unique``."""
    result: list[Any] = []
    for item in sort_array(v):
        if not result or not equal(result[-1], item):
            result.append(item)
    return result


def _extreme(v: Any, last: bool) -> Any:
    if type(v) is not list:
        raise Unsupported("min/max of a non-array")
    best = None
    best_key: tuple[Any, ...] | None = None
    for item in v:
        key = sort_key(item)
        if best_key is None or (key >= best_key if last else key < best_key):
            best, best_key = item, key
    return best


def tonumber(v: Any) -> Any:
    """``tonumber`` for the spellings whose value prints back the same way."""
    if is_number(v):
        return v
    if type(v) is not str:
        raise JqError(f"{describe(v)} cannot be parsed as a number")
    if re.fullmatch(r"-?(?:0|[1-9][0-9]{0,15})", v):
        return int(v)
    if re.fullmatch(r"-?(?:0|[1-9][0-9]*)\.[0-9]*[1-9]", v) and repr(float(v)) == v:
        return float(v)
    raise Unsupported("number spelling")


def _parse_float(text: str) -> float:
    if repr(float(text)) != text:
        raise Unsupported("number spelling in JSON text")
    return float(text)


def _reject_constant(text: str) -> Any:
    raise Unsupported(f"JSON constant {text}")


def fromjson(v: Any) -> Any:
    """``fromjson`` for JSON text whose numbers print back the same way."""
    if type(v) is not str:
        raise JqError(f"{describe(v)} only strings can be parsed")
    try:
        return json.loads(v, parse_float=_parse_float, parse_constant=_reject_constant)
    except (ValueError, RecursionError):
        raise Unsupported("invalid JSON text") from None


def floor(v: Any) -> Any:
    """``floor``."""
    if not is_number(v):
        raise JqError(f"{describe(v)} number required")
    return v if type(v) is int else num(float(math.floor(v)))


def sqrt(v: Any) -> Any:
    """``sqrt``."""
    if not is_number(v):
        raise JqError(f"{describe(v)} number required")
    if v < 0:
        raise Unsupported("square root of a negative number")
    return num(math.sqrt(v))


_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
_ASCII_UPPER = str.maketrans("abcdefghijklmnopqrstuvwxyz", "ABCDEFGHIJKLMNOPQRSTUVWXYZ")


def _ascii_case(table: dict[int, int]) -> Callable[[Any], Any]:
    def convert(v: Any) -> Any:
        if type(v) is not str:
            raise JqError("explode input must be a string")
        return v.translate(table)

    return convert


def flatten(v: Any, depth: float = -1) -> list[Any]:
    """``flatten`` / ``flatten(depth)``."""
    result: list[Any] = []
    for item in iterate(v):
        if type(item) is list and depth != 0:
            result.extend(flatten(item, depth - 1))
        else:
            result.append(item)
    return result


def _first(v: Any) -> Any:
    return index_value(v, 0)


def _last(v: Any) -> Any:
    return index_value(v, -1)


def _not(v: Any) -> bool:
    return not truthy(v)


ZERO_ARG: dict[str, Callable[[Any], Any]] = {
    "length": length,
    "utf8bytelength": utf8bytelength,
    "not": _not,
    "keys": keys,
    "keys_unsorted": keys_unsorted,
    "to_entries": to_entries,
    "from_entries": from_entries,
    "add": add_all,
    "sort": sort_array,
    "unique": unique,
    "min": lambda v: _extreme(v, last=False),
    "max": lambda v: _extreme(v, last=True),
    "tostring": tostring,
    "tojson": tojson,
    "fromjson": fromjson,
    "tonumber": tonumber,
    "type": type_name,
    "ascii_downcase": _ascii_case(_ASCII_LOWER),
    "ascii_upcase": _ascii_case(_ASCII_UPPER),
    "floor": floor,
    "sqrt": sqrt,
    "flatten": flatten,
    "first": _first,
    "last": _last,
    "fromdateiso8601": fromdateiso8601,
    "fromdate": fromdateiso8601,
    "todateiso8601": todateiso8601,
    "todate": todateiso8601,
    "mktime": mktime,
    "gmtime": gmtime,
}

_TYPE_FILTERS: dict[str, Callable[[Any], bool]] = {
    "values": lambda v: v is not None,
    "nulls": lambda v: v is None,
    "booleans": lambda v: v is True or v is False,
    "numbers": is_number,
    "strings": lambda v: type(v) is str,
    "arrays": lambda v: type(v) is list,
    "objects": lambda v: type(v) is dict,
    "iterables": lambda v: type(v) is list or type(v) is dict,
    "scalars": lambda v: type(v) is not list and type(v) is not dict,
}
TYPE_FILTERS = _TYPE_FILTERS
