"""Kubernetes resource quantities: exact parsing, JSON numbers and compact display.

A quantity is a signed decimal number followed by an optional suffix: a binary SI suffix
(``Ki``, ``Mi``, ``Gi``, ``Ti``, ``Pi``, ``Ei``), a decimal SI suffix (``n``, ``u``, ``m``,
``k``, ``M``, ``G``, ``T``, ``P``, ``E``) or a decimal exponent (``e3``, ``E-2``). A lone
``E`` is the exa suffix; ``E`` followed by digits is an exponent. Values are returned as
:class:`decimal.Decimal` so that ``100m``, ``0.5Ki`` and ``1e-3`` stay exact and sum
without rounding.
"""

from __future__ import annotations

import math
import re
from decimal import Decimal, localcontext
from fractions import Fraction
from functools import lru_cache

from wlmap.errors import WorkloadShapeError

__all__ = [
    "format_bytes",
    "format_cores",
    "format_quantity",
    "is_byte_resource",
    "parse_quantity",
    "quantity_to_number",
]

_QUANTITY = re.compile(
    r"(?P<sign>[+-]?)(?P<int>[0-9]*)(?:\.(?P<frac>[0-9]*))?"
    r"(?P<suffix>[eE][+-]?[0-9]+|[KMGTPE]i|[numkMGTPE])?"
)

_BINARY = {"Ki": 1, "Mi": 2, "Gi": 3, "Ti": 4, "Pi": 5, "Ei": 6}
_DECIMAL = {"n": -9, "u": -6, "m": -3, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
_BINARY_UNITS = ("Ki", "Mi", "Gi", "Ti", "Pi", "Ei")

# An exponent this large is a typo or an attack, never a resource amount; refusing it
# keeps exponent arithmetic from building numbers with millions of digits.
_MAX_EXPONENT = 100

_EXPECTED = "expected a number with an optional suffix, e.g. 100m, 1.5, 2Gi, 500Mi, 1k or 1e3"


def _invalid(value: object, where: str, reason: str = _EXPECTED) -> WorkloadShapeError:
    at = f" at {where}" if where else ""
    return WorkloadShapeError(f"invalid quantity {value!r}{at}: {reason}")


def parse_quantity(value: object, where: str = "") -> Decimal:
    """Parse a Kubernetes quantity exactly.

    Args:
        value: a quantity string (``"100m"``, ``"2Gi"``, ``"1e3"``), or a number as YAML
            or JSON gives it (``int``, ``float`` or ``Decimal``).
        where: field path the value was read from, used in the error message.

    Returns:
        The amount in base units (cores for CPU, bytes for memory, devices otherwise).

    Raises:
        WorkloadShapeError: the value is not a valid quantity.
    """
    if isinstance(value, bool):
        raise _invalid(value, where)
    if isinstance(value, int):
        return Decimal(value)
    if isinstance(value, float | Decimal):
        if not math.isfinite(value):
            raise _invalid(value, where)
        # repr() gives the shortest decimal that round-trips, i.e. what was written.
        return Decimal(repr(value)) if isinstance(value, float) else value
    if not isinstance(value, str):
        raise _invalid(value, where)
    parsed = _parse_text(value)
    if isinstance(parsed, str):
        raise _invalid(value, where, parsed)
    return parsed


@lru_cache(maxsize=4096)
def _parse_text(value: str) -> Decimal | str:
    """A quantity string's amount, or the reason it is invalid (cached: specs repeat values)."""
    match = _QUANTITY.fullmatch(value)
    if match is None or not (match["int"] or match["frac"]):
        return _EXPECTED
    digits = match["int"] + (match["frac"] or "")
    scale = -len(match["frac"] or "")
    amount = Decimal(int(digits))
    suffix = match["suffix"] or ""
    if suffix in _BINARY:
        with localcontext() as exact:
            exact.prec = 200
            amount *= 1024 ** _BINARY[suffix]
    else:
        exponent = _DECIMAL[suffix] if suffix in _DECIMAL else int(suffix[1:] or 0)
        if abs(exponent) > _MAX_EXPONENT:
            return f"exponent {exponent} is out of range"
        scale += exponent
    amount = amount.scaleb(scale)
    return -amount if match["sign"] == "-" else amount


def is_byte_resource(resource: str) -> bool:
    """Whether a resource is measured in bytes (memory, storage, hugepages)."""
    return resource in {"memory", "ephemeral-storage", "storage"} or resource.startswith(
        "hugepages-"
    )


def _number(value: Decimal | Fraction) -> int | float:
    return int(value) if value == int(value) else float(value)


def quantity_to_number(resource: str, value: Decimal | Fraction) -> int | float:
    """Turn an amount into a JSON number: cores for CPU, whole bytes for byte resources.

    Byte amounts are rounded up to a whole byte, as Kubernetes does; every other resource
    is an ``int`` when integral and a ``float`` otherwise.
    """
    if is_byte_resource(resource):
        return math.ceil(value)
    return _number(value)


def format_cores(value: Decimal | Fraction) -> str:
    """Format a CPU amount compactly: ``8``, ``500m``, ``1.5``.

    Amounts below one core are shown in millicores, others in cores with up to three
    decimals; both round up to a whole millicore, the finest CPU precision Kubernetes keeps.
    """
    value = Fraction(value)
    sign, value = ("-", -value) if value < 0 else ("", value)
    millis = math.ceil(value * 1000)
    if millis % 1000 == 0:
        return f"{sign}{millis // 1000}"
    if millis < 1000:
        return f"{sign}{millis}m"
    whole, rest = divmod(millis, 1000)
    return f"{sign}{whole}.{rest:03d}".rstrip("0")


def format_bytes(value: Decimal | Fraction) -> str:
    """Format a byte amount compactly with binary units: ``64Gi``, ``1.5Gi``, ``1025Mi``.

    The largest unit that keeps the number at or above one is used when the amount is a
    whole or one-decimal number of it, else the next smaller unit when the amount is whole
    in it; otherwise the largest unit with one decimal, rounded.
    """
    value = Fraction(value)
    sign, value = ("-", -value) if value < 0 else ("", value)
    size = math.ceil(value)
    powers = [p for p in range(len(_BINARY_UNITS), 0, -1) if size >= 1024**p]
    if not powers:
        return f"{sign}{size}"
    top = powers[0]
    scaled = Fraction(size, 1024**top)
    if (scaled * 10).denominator == 1:
        return f"{sign}{_decimal_text(scaled)}{_BINARY_UNITS[top - 1]}"
    if top > 1 and size % 1024 ** (top - 1) == 0:
        return f"{sign}{size // 1024 ** (top - 1)}{_BINARY_UNITS[top - 2]}"
    return f"{sign}{_decimal_text(Fraction(round(scaled * 10), 10))}{_BINARY_UNITS[top - 1]}"


def _decimal_text(value: Fraction) -> str:
    """Text of a non-negative number with at most one decimal, without a trailing ``.0``."""
    tenths = int(value * 10)
    whole, rest = divmod(tenths, 10)
    return f"{whole}.{rest}" if rest else str(whole)


def format_quantity(resource: str, value: Decimal | Fraction) -> str:
    """Format an amount of a named resource for a table cell."""
    if resource == "cpu":
        return format_cores(value)
    if is_byte_resource(resource):
        return format_bytes(value)
    number = _number(value)
    return f"{number:g}" if isinstance(number, float) else str(number)
