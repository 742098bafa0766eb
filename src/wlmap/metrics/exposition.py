"""The Prometheus text exposition format (version 0.0.4): label escaping, values, lines.

A label value escapes backslash, double quote and line feed (``\\``, ``\"``, ``\n``) and
passes every other character through as UTF-8, as the format asks. Values are written as
Go's ``strconv.FormatFloat(v, 'g', -1, 64)`` would for integers and as Python's shortest
round-tripping ``repr`` otherwise; ``+Inf``, ``-Inf`` and ``NaN`` are spelled as the
format spells them.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

__all__ = ["CONTENT_TYPE", "Family", "escape", "format_value", "header", "line", "series"]

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
"""What an HTTP server sends the exposition as."""

_ESCAPES = str.maketrans({"\\": "\\\\", '"': '\\"', "\n": "\\n"})
_HELP_ESCAPES = str.maketrans({"\\": "\\\\", "\n": "\\n"})

Kind = Literal["gauge", "counter"]


@dataclass(frozen=True, slots=True)
class Family:
    """One metric family: its name, type, help line and label names (in order).

    Attributes:
        name: the metric name (a counter's ends in ``_total``).
        kind: ``gauge`` or ``counter``.
        help: one line saying what a sample means.
        labels: the label names every sample carries, in the order they are written.
    """

    name: str
    kind: Kind
    help: str
    labels: tuple[str, ...] = ()


def escape(value: str) -> str:
    """A label value as written between the double quotes of a sample line."""
    return value.translate(_ESCAPES)


def format_value(value: float) -> str:
    """A sample value: integers without a decimal point, floats in their shortest form."""
    if isinstance(value, int):
        return str(value)
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    if value == int(value) and abs(value) < 1e15:
        return str(int(value))
    return repr(value)


def header(family: Family) -> str:
    """The ``# HELP`` and ``# TYPE`` lines of a family, each ending in a line feed."""
    text = family.help.translate(_HELP_ESCAPES)
    return f"# HELP {family.name} {text}\n# TYPE {family.name} {family.kind}\n"


def series(names: tuple[str, ...], values: Iterable[str]) -> str:
    """The ``{...}`` label part of a sample: ``names`` paired with ``values`` (escaped here);
    empty for no labels."""
    pairs = ",".join(f'{n}="{escape(v)}"' for n, v in zip(names, values, strict=True))
    return f"{{{pairs}}}" if pairs else ""


def line(name: str, labels: str, value: float) -> str:
    """One sample line: the metric name, its label part (from :func:`series`) and value."""
    return f"{name}{labels} {format_value(value)}\n"
