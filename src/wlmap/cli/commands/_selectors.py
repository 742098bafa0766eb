"""Equality-based label selectors as kubectl accepts them: ``k=v``, ``k==v``, ``k!=v``, ``k``, ``!k``."""

from __future__ import annotations

from collections.abc import Mapping

import click

Requirement = tuple[str, str, str | None]


def parse_selector(text: str) -> list[Requirement]:
    """Requirements of a selector (``(key, op, value)``; op is ``=``, ``!=``, ``exists``, ``!exists``)."""
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
        if not found[-1][0]:
            raise click.BadParameter(f"{part!r} has no label key", param_hint="--selector")
    return found


def matches_selector(labels: Mapping[str, str], requirements: list[Requirement]) -> bool:
    """Whether labels satisfy every requirement."""
    for key, op, value in requirements:
        present = key in labels
        if (op == "=" and labels.get(key) != value) or (op == "!=" and labels.get(key) == value):
            return False
        if (op == "exists" and not present) or (op == "!exists" and present):
            return False
    return True
