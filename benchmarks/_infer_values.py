"""The same path by its values: what a catalog expression and a drafted one give on samples.

Reading the jq text is not enough to tell two expressions read the same field: a catalog
id expression that walks a fixed list of fields (``$c | ("a", "b") | select($c[.] !=
null)``) and a drafted one that walks them in another spelling read the same field, and
the text-based reader (``_jq_reads``) cannot follow every spelling. Where the reads differ,
the benchmark evaluates both on the corpus's sample objects of the kind: the same values
on every sample that gives any, and at least one sample that does, count as the same
path. Strings compare without case (an operator that lowercases a role's name for its
labels reads the same field as one that keeps it).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping, Sequence
from typing import Any

from wlmap import jq
from wlmap.errors import WlmapError

Samples = Sequence[Mapping[str, Any]]


@functools.cache
def _program(text: str) -> Any:
    try:
        return jq.default_engine().compile(text)
    except WlmapError:
        return None


def values(expression: str | None, obj: Mapping[str, Any]) -> list[Any] | None:
    """What ``expression`` gives on ``obj`` (nulls dropped, strings lower-cased), sorted;
    None when it does not compile or fails (a variable the benchmark does not bind)."""
    if not expression:
        return None
    program = _program(expression)
    if program is None:
        return None
    try:
        found = program.all(obj)
    except (WlmapError, ValueError, TypeError):
        return None
    out = [v.lower() if isinstance(v, str) else v for v in found if v is not None]
    return sorted(out, key=repr)


def same_values(theirs: str | None, mine: str | None, samples: Samples) -> bool:
    """Both give the same values on every sample where ``theirs`` gives any, and at
    least one sample does."""
    seen = False
    for obj in samples:
        want = values(theirs, obj)
        if not want:
            continue
        if values(mine, obj) != want:
            return False
        seen = True
    return seen


def reads_a_field(expression: str | None) -> bool:
    """Whether an expression reads the object at all: a constant count (``1``) matches
    a catalog count on samples by chance, not by reading the same field."""
    return bool(expression and re.search(r"\.[A-Za-z_]", expression))


def holding_template(path: str) -> dict[str, Any] | None:
    """The smallest object with an empty template at a plain field path (``.a.b``), on
    which a count that only tests its own template's presence gives its value; None for
    any other path."""
    steps = re.fullmatch(r"(\.[A-Za-z_]\w*)+", path.replace("?", ""))
    if steps is None:
        return None
    obj: dict[str, Any] = {}
    for step in reversed(path.replace("?", "").split(".")[1:]):
        obj = {step: obj}
    return obj
