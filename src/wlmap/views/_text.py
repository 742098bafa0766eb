"""Text from the objects made safe for a terminal: control characters are escaped.

A name holding an escape sequence or a newline would otherwise move the cursor, recolour
the terminal or forge a table row.
"""

from __future__ import annotations

import re

_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def printable(text: str, *, lines: bool = False) -> str:
    """``text`` with each control character written as its escape (``\\x1b``, ``\\n``);
    with ``lines``, line breaks stay (a message of several lines on stderr)."""
    if lines:
        return "\n".join(printable(line) for line in text.split("\n"))
    if _CONTROL.search(text) is None:
        return text
    return _CONTROL.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), text)
