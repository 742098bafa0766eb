"""Equality-based label selectors as kubectl and the API server accept them: ``k=v``,
``k==v``, ``k!=v``, ``k`` and ``!k``, separated by commas (set-based forms such as
``k in (a,b)`` are not accepted). The CLI's ``-l`` and the operator's scope read them
alike."""

from __future__ import annotations

import re
from collections.abc import Mapping

Requirement = tuple[str, str, str | None]  # key, op (=, !=, exists, !exists), value

_LABEL_KEY = re.compile(
    r"^([a-z0-9]([-a-z0-9.]*[a-z0-9])?/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$"
)


def parse_selector(text: str) -> list[Requirement]:
    """The requirements of a selector.

    Raises:
        ValueError: a requirement without a valid label key, naming it.
    """
    found: list[Requirement] = []
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        if "!=" in part:
            key, value = part.split("!=", 1)
            found.append((key.strip(), "!=", value.strip()))
        elif "=" in part:
            key, value = part.replace("==", "=").split("=", 1)
            found.append((key.strip(), "=", value.strip()))
        elif part.startswith("!"):
            found.append((part[1:].strip(), "!exists", None))
        else:
            found.append((part, "exists", None))
        if not _LABEL_KEY.match(found[-1][0]):
            raise ValueError(
                f"label selector {text!r}: {part!r} has no valid label key "
                "(expected k=v, k!=v, k or !k, separated by commas)"
            )
    return found


def matches(labels: Mapping[str, str], requirements: list[Requirement]) -> bool:
    """Whether labels satisfy every requirement."""
    for key, op, value in requirements:
        present = key in labels
        if (op == "=" and labels.get(key) != value) or (op == "!=" and labels.get(key) == value):
            return False
        if (op == "exists" and not present) or (op == "!exists" and present):
            return False
    return True
