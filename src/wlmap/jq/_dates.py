"""jq's date builtins (``strptime``, ``mktime``, ``gmtime``, ``strftime`` and the ISO 8601
helpers built on them) on plain Python values, as libjq 1.8 computes them on glibc.

libjq hands the work to the C library: ``strptime`` and ``strftime`` of glibc in the C
locale, ``timegm`` for ``mktime`` and ``gmtime_r``. Their quirks are part of jq's results
and are reproduced here: numbers may have fewer digits or leading blanks, fields are not
checked against the month (February 30 is March 1), trailing blanks are returned as a
ninth element, ``mktime`` truncates fractions and reports a result of -1 as an error, and
``gmtime`` adds the fraction of its input to the seconds after truncating it toward zero.
Formats beyond the numeric directives, and dates outside years 0-9999, raise
``Unsupported`` so that libjq decides.
"""

from __future__ import annotations

import math
import re
from typing import Any

from wlmap.jq._values import JqError, Unsupported, is_number, num

_SPACES = frozenset(" \t\n\v\f\r")  # isspace() of the C locale
_DIGITS = frozenset("0123456789")
# Directives both sides support, with glibc's expansions of the composite ones.
_COMPOSITE = {"T": "%H:%M:%S", "F": "%Y-%m-%d"}
# directive -> (tm field index, smallest, largest, most digits); index 1 is stored minus one.
_NUMERIC = {
    "Y": (0, 0, 9999, 4),
    "m": (1, 1, 12, 2),
    "d": (2, 1, 31, 2),
    "e": (2, 1, 31, 2),
    "H": (3, 0, 23, 2),
    "M": (4, 0, 59, 2),
    "S": (5, 0, 61, 2),
}
_DATE_DIRECTIVES = frozenset("Ymde")
_MONTH_START = (0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334)
_INT_MIN, _INT_MAX = -(2**31), 2**31 - 1
# Seconds of 0000-01-01 and of 9999-12-31T23:59:59: outside, libjq decides.
_EARLIEST, _LATEST = -62167219200, 253402300799
_UNIX_EPOCH_DAYS = 719468  # days from 0000-03-01 to 1970-01-01
# The spelling Kubernetes writes: glibc reads it exactly as the general matcher does.
_KUBERNETES_TIME = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2}):([0-9]{2})Z")


def _expand(fmt: str) -> str:
    if "%%" in fmt:
        raise Unsupported("%% in a date format")  # would need a tokenizer to expand around
    for name, expansion in _COMPOSITE.items():
        fmt = fmt.replace("%" + name, expansion)
    return fmt


def _c_div(a: int, b: int) -> int:
    """C's integer division, which truncates toward zero."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def _is_leap(year: int) -> bool:
    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)


def _glibc_weekday(tm_year: int, tm_mon: int, tm_mday: int) -> int:
    """glibc strptime's day of the week (it does not normalise the day of the month)."""
    corr_year = 1900 + tm_year - (1 if tm_mon < 2 else 0)
    quad = _c_div(corr_year, 4)
    days = (
        -473
        + 365 * (tm_year - 70)
        + quad
        - _c_div(quad, 25)
        + (1 if math.fmod(quad, 25) < 0 else 0)
        + _c_div(_c_div(quad, 25), 4)
        + _MONTH_START[tm_mon]
        + tm_mday
        - 1
    )
    return days % 7


def strptime(v: Any, fmt: Any) -> list[Any]:
    """``strptime(fmt)`` for formats of numeric directives, literals and ``%Z``."""
    if type(v) is not str or type(fmt) is not str:
        raise JqError("strptime/1 requires string inputs and arguments")
    if "\0" in v or "\0" in fmt:
        raise Unsupported("NUL in a strptime string")  # C strings end there
    tm = [0, 0, 0, 0, 0, 0, 8, 367]  # jq's sentinels for weekday and day of the year
    pos = _match(v, _expand(fmt), tm)
    if pos is None or (pos < len(v) and v[pos] not in _SPACES):
        raise JqError(f'date "{v}" does not match format "{fmt}"')
    result: list[Any] = [tm[0] + 1900, *tm[1:]]
    if pos < len(v):
        result.append(v[pos:])
    return result


def _match(text: str, fmt: str, tm: list[int]) -> int | None:
    """glibc's matching of ``text`` against ``fmt``: the end position, or None."""
    pos, i, size, dated = 0, 0, len(text), False
    while i < len(fmt):
        c = fmt[i]
        i += 1
        if c in _SPACES:
            while pos < size and text[pos] in _SPACES:
                pos += 1
            continue
        if c != "%":
            if pos >= size or text[pos] != c:
                return None
            pos += 1
            continue
        directive = fmt[i] if i < len(fmt) else ""
        i += 1
        if directive == "%":
            if pos >= size or text[pos] != "%":
                return None
            pos += 1
        elif directive in ("n", "t", "Z"):
            while pos < size and text[pos] in _SPACES:
                pos += 1
            if directive == "Z":  # a zone name is read and ignored
                while pos < size and text[pos] not in _SPACES:
                    pos += 1
        elif directive in _NUMERIC:
            field, low, high, width = _NUMERIC[directive]
            while pos < size and text[pos] in _SPACES:
                pos += 1
            if pos >= size or text[pos] not in _DIGITS:
                return None
            value, digits = 0, 0
            while True:
                value = value * 10 + ord(text[pos]) - 48
                pos, digits = pos + 1, digits + 1
                more = digits < width and value * 10 <= high
                if not (more and pos < size and text[pos] in _DIGITS):
                    break
            if not low <= value <= high:
                return None
            tm[field] = value - 1900 if field == 0 else value - 1 if field == 1 else value
            dated = dated or directive in _DATE_DIRECTIVES
        else:
            raise Unsupported(f"strptime directive %{directive}")
    if dated:
        tm[6] = _glibc_weekday(tm[0], tm[1], tm[2])
        tm[7] = _MONTH_START[tm[1]] + (1 if tm[1] > 1 and _is_leap(tm[0] + 1900) else 0)
        tm[7] += tm[2] - 1
    return pos


def _fields(v: Any) -> list[int]:
    """libjq's reading of a broken-down time: up to eight numbers, each cut to a C int."""
    fields = [0] * 8
    for index, item in enumerate(v[:8]):
        if not is_number(item) or math.isnan(item):
            raise JqError("requires parsed datetime inputs")
        try:
            d = float(item) - 1900 if index == 0 else float(item)
        except OverflowError:
            raise Unsupported("datetime field beyond a double") from None
        if math.isinf(d):
            raise Unsupported("infinite datetime field")
        fields[index] = min(max(int(d), _INT_MIN), _INT_MAX)
    return fields


def _days_from_civil(year: int, month: int, day: int) -> int:
    """Days since 1970-01-01 of a proleptic Gregorian date (month 1-12)."""
    year -= month <= 2
    era = year // 400
    year_of_era = year - era * 400
    day_of_year = (153 * (month + (-3 if month > 2 else 9)) + 2) // 5 + day - 1
    day_of_era = year_of_era * 365 + year_of_era // 4 - year_of_era // 100 + day_of_year
    return era * 146097 + day_of_era - _UNIX_EPOCH_DAYS


def _timegm(fields: list[int]) -> int:
    """Seconds since the epoch of normalised fields, as ``timegm`` computes them."""
    year = fields[0] + 1900 + fields[1] // 12
    days = _days_from_civil(year, fields[1] % 12 + 1, 1) + fields[2] - 1
    seconds = days * 86400 + fields[3] * 3600 + fields[4] * 60 + fields[5]
    if not _EARLIEST <= seconds <= _LATEST:
        raise Unsupported("date outside years 0-9999")
    return seconds


def mktime(v: Any) -> int:
    """``mktime``: seconds since the epoch of a broken-down UTC time."""
    if type(v) is not list:
        raise JqError("mktime requires array inputs")
    try:
        seconds = _timegm(_fields(v))
    except JqError:
        raise JqError("mktime requires parsed datetime inputs") from None
    # jq takes -1 (timegm's error value) and -2 (its own) for failures, even when they
    # are the right answer.
    if seconds == -1:
        raise JqError("invalid gmtime representation")
    if seconds == -2:
        raise JqError("mktime not supported on this platform")
    return seconds


def _broken_down(seconds: int) -> list[int]:
    days, rest = divmod(seconds, 86400)
    shifted = days + _UNIX_EPOCH_DAYS
    era = shifted // 146097
    day_of_era = shifted - era * 146097
    year_of_era = (
        day_of_era - day_of_era // 1460 + day_of_era // 36524 - day_of_era // 146096
    ) // 365
    day_of_year = day_of_era - (365 * year_of_era + year_of_era // 4 - year_of_era // 100)
    mp = (5 * day_of_year + 2) // 153
    day = day_of_year - (153 * mp + 2) // 5 + 1
    month = mp + 3 if mp < 10 else mp - 9
    year = year_of_era + era * 400 + (1 if month <= 2 else 0)
    yday = _MONTH_START[month - 1] + (1 if month > 2 and _is_leap(year) else 0) + day - 1
    weekday = (days + 4) % 7
    return [year, month - 1, day, rest // 3600, rest % 3600 // 60, rest % 60, weekday, yday]


def gmtime(v: Any) -> list[Any]:
    """``gmtime``: the broken-down UTC time of seconds since the epoch."""
    if not is_number(v):
        raise JqError("gmtime() requires numeric inputs")
    f = float(v)
    if not math.isfinite(f) or not _EARLIEST <= f <= _LATEST:
        raise Unsupported("gmtime outside years 0-9999")
    fields: list[Any] = _broken_down(int(f))  # C's conversion truncates toward zero
    fields[5] = num(fields[5] + (f - math.floor(f)))
    return fields


def strftime(v: Any, fmt: Any) -> str:
    """``strftime(fmt)`` for formats of numeric directives and literals."""
    if is_number(v):
        v = gmtime(v)
    elif type(v) is not list:
        raise JqError("strftime/1 requires parsed datetime inputs")
    if type(fmt) is not str:
        raise JqError("strftime/1 requires a string format")
    try:
        tm = _broken_down(_timegm(_fields(v)))  # libjq normalises the fields first
    except JqError:
        raise JqError("strftime/1 requires parsed datetime inputs") from None
    out = _format(tm, _expand(fmt))
    if "\0" in fmt or len(out.encode()) + 1 > len(fmt.encode()) + 100:
        raise Unsupported("strftime result beyond libjq's buffer")
    return out


def _format(tm: list[int], fmt: str) -> str:
    pieces: list[str] = []
    i = 0
    while i < len(fmt):
        c = fmt[i]
        i += 1
        if c != "%":
            pieces.append(c)
            continue
        directive = fmt[i] if i < len(fmt) else ""
        i += 1
        if directive == "%":
            pieces.append("%")
        elif directive == "Y":
            pieces.append(str(tm[0]))
        elif directive in ("m", "d", "H", "M", "S"):
            value = tm[1] + 1 if directive == "m" else tm["mdHMS".index(directive) + 1]
            pieces.append(f"{value:02d}")
        elif directive == "e":
            pieces.append(f"{tm[2]:2d}")
        elif directive == "j":
            pieces.append(f"{tm[7] + 1:03d}")
        else:
            raise Unsupported(f"strftime directive %{directive}")
    return "".join(pieces)


def fromdateiso8601(v: Any) -> int:
    """``fromdateiso8601`` (jq defines it as ``strptime(...) | mktime``)."""
    found = _KUBERNETES_TIME.fullmatch(v) if type(v) is str else None
    if found is None:
        return mktime(strptime(v, "%Y-%m-%dT%H:%M:%SZ"))
    year, month, day, hour, minute, second = map(int, found.groups())
    if not (1 <= month <= 12 and 1 <= day <= 31 and hour <= 23 and minute <= 59 and second <= 61):
        return mktime(strptime(v, "%Y-%m-%dT%H:%M:%SZ"))  # the error libjq reports
    return mktime([year, month - 1, day, hour, minute, second])


def todateiso8601(v: Any) -> str:
    """``todateiso8601`` (jq defines it as ``strftime(...)``)."""
    return strftime(v, "%Y-%m-%dT%H:%M:%SZ")
