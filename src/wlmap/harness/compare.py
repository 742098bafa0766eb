"""Comparing what a case expects with what the view says, field by field."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Mismatch:
    """One difference: where, what was expected, what was found."""

    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.path or '<root>'}: {self.message}"


def compare(expected: Any, actual: Any, path: str = "") -> list[Mismatch]:
    """Every difference between an expectation and the actual value.

    Mappings match when every expected key is present and matches (the actual side may
    have more keys; an expected key the actual side lacks is an error, since a field the
    view does not produce can never be checked). Lists match element by element and must
    have the same length. Numbers compare by value (``1 == 1.0``).
    """
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return [Mismatch(path, f"expected an object, got {_show(actual)}")]
        found: list[Mismatch] = []
        for key, value in expected.items():
            where = f"{path}.{key}" if path else str(key)
            if key not in actual:
                known = ", ".join(sorted(actual))
                found.append(Mismatch(where, f"the view has no field {key!r} (it has: {known})"))
            else:
                found.extend(compare(value, actual[key], where))
        return found
    if isinstance(expected, list):
        if not isinstance(actual, list):
            return [Mismatch(path, f"expected a list, got {_show(actual)}")]
        if len(expected) != len(actual):
            return [
                Mismatch(
                    path,
                    f"expected {len(expected)} item(s), got {len(actual)}: {_show(actual)}",
                )
            ]
        found = []
        for index, (want, have) in enumerate(zip(expected, actual, strict=True)):
            found.extend(compare(want, have, f"{path}[{index}]"))
        return found
    if _same(expected, actual):
        return []
    return [Mismatch(path, f"expected {_show(expected)}, got {_show(actual)}")]


def _same(expected: Any, actual: Any) -> bool:
    if isinstance(expected, bool) or isinstance(actual, bool):
        return expected is actual
    if isinstance(expected, int | float) and isinstance(actual, int | float):
        return float(expected) == float(actual)
    return bool(expected == actual)


def _show(value: Any) -> str:
    text = json.dumps(value, default=str, sort_keys=True)
    return text if len(text) <= 120 else text[:117] + "..."
