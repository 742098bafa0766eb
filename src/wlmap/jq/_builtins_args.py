"""jq builtins that take arguments, on plain Python values, with libjq's errors."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from wlmap.jq._arith import add, split_string
from wlmap.jq._builtins import flatten, has, index_value, iterate
from wlmap.jq._dates import strftime, strptime
from wlmap.jq._values import JqError, Unsupported, describe, equal, is_number, tojson

# jq kinds for containment: true and false are different kinds.
_KINDS = {type(None): 0, str: 3, list: 4, dict: 5, int: 6, float: 6}


def _kind(v: Any) -> int:
    if v is True:
        return 1
    if v is False:
        return 2
    return _KINDS[type(v)]


def contains(a: Any, b: Any) -> bool:
    """``a | contains(b)``."""
    if _kind(a) != _kind(b):
        raise JqError(f"{describe(a)} and {describe(b)} cannot have their containment checked")
    return _contains(a, b)


def _contains(a: Any, b: Any) -> bool:
    if _kind(a) != _kind(b):
        return False
    if type(a) is dict:
        return all(k in a and _contains(a[k], bv) for k, bv in b.items())
    if type(a) is list:
        return all(any(_contains(x, y) for x in a) for y in b)
    if type(a) is str:
        return b in a
    return equal(a, b)


def startswith(v: Any, prefix: Any) -> bool:
    """``startswith(prefix)``."""
    if type(v) is not str or type(prefix) is not str:
        raise JqError("startswith() requires string inputs")
    return v.startswith(prefix)


def endswith(v: Any, suffix: Any) -> bool:
    """``endswith(suffix)``."""
    if type(v) is not str or type(suffix) is not str:
        raise JqError("endswith() requires string inputs")
    return v.endswith(suffix)


def ltrimstr(v: Any, prefix: Any) -> Any:
    """``ltrimstr(prefix)``."""
    return v[len(prefix) :] if startswith(v, prefix) else v


def rtrimstr(v: Any, suffix: Any) -> Any:
    """``rtrimstr(suffix)``."""
    if endswith(v, suffix) and suffix:
        return v[: -len(suffix)]
    return v


def split(v: Any, sep: Any) -> list[str]:
    """``split(sep)`` (plain string separator)."""
    if type(v) is not str or type(sep) is not str:
        raise JqError("split input and separator must be strings")
    return split_string(v, sep)


def join(v: Any, sep: Any, charge: Callable[[Any], None] | None = None) -> Any:
    """``join(sep)`` as jq 1.8 defines it, in linear time: jq adds the pieces one by one,
    which is quadratic in Python. Errors are raised by the very addition jq would fail at,
    so messages are the same. ``charge`` is told of each item first (the bounded
    evaluator's budget)."""
    parts: list[str] = []
    first = True
    for item in iterate(v):
        if charge is not None:
            charge(item)
        if not first:
            if type(sep) is str:
                parts.append(sep)
            elif sep is not None:
                add("".join(parts), sep)  # raises jq's error
        first = False
        if item is None:
            piece: Any = ""
        elif item is True or item is False or is_number(item):
            piece = tojson(item)
        else:
            piece = item
        if type(piece) is not str:
            add("".join(parts), piece)  # raises jq's error
        parts.append(piece)
    return "".join(parts)


def has_key(v: Any, key: Any) -> bool:
    """``has(key)``."""
    return has(v, key)


def in_container(v: Any, container: Any) -> bool:
    """``in(container)``."""
    return has(container, v)


def getpath(v: Any, path: Any) -> Any:
    """``getpath(path)``."""
    if type(path) is not list:
        raise JqError("Path must be specified as an array")
    current = v
    for key in path:
        if current is None:
            if key is None:
                index_value(current, key)  # raises the error libjq raises
            elif not (type(key) is str or is_number(key)):
                raise Unsupported("getpath through null with an unusual key")
            continue
        current = index_value(current, key)
    return current


def flatten_depth(v: Any, depth: Any) -> list[Any]:
    """``flatten(depth)``."""
    if not is_number(depth):
        raise Unsupported("non-numeric flatten depth")
    if depth < 0:
        raise JqError("flatten depth must not be negative")
    return flatten(v, depth)


def error(v: Any, message: Any) -> Any:
    """``error(message)``."""
    raise JqError(message)


# A "safe" regular expression is literal text plus a few operators that mean the same in
# Python's re and in Oniguruma, with no nested quantifiers (no catastrophic backtracking).
_SAFE_REGEX = re.compile(r"(?:[A-Za-z0-9 _\-/:,=@'\"]|\\[.\-/\\]|[.^$|]|[*+?](?!\?)|\(|\))*")
_NESTED_QUANTIFIER = re.compile(r"\([^()]*[*+?][^()]*\)[*+?]")


def compile_regex(pattern: str) -> re.Pattern[str] | None:
    """Compile ``pattern`` for ``test`` if Python and libjq agree on it, else None."""
    if not _SAFE_REGEX.fullmatch(pattern) or _NESTED_QUANTIFIER.search(pattern):
        return None
    if "(" in pattern and re.search(r"\([^)]*\(", pattern):
        return None
    try:
        return re.compile(pattern)
    except re.error:
        return None


ONE_ARG: dict[str, Callable[[Any, Any], Any]] = {
    "contains": contains,
    "startswith": startswith,
    "endswith": endswith,
    "ltrimstr": ltrimstr,
    "rtrimstr": rtrimstr,
    "split": split,
    "join": join,
    "has": has_key,
    "in": in_container,
    "getpath": getpath,
    "flatten": flatten_depth,
    "error": error,
    "strptime": strptime,
    "strftime": strftime,
}
