"""How values read by jq become ids and keys: instance ids, replica keys, gang keys."""

from __future__ import annotations

from typing import Any


def key_text(value: Any) -> str:
    """A scalar as an id: strings as they are, whole numbers without a fraction."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)
