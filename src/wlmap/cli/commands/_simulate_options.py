"""What ``wlmap simulate`` and ``wlmap simulate gangs`` share: the seed option and the rows' output."""

from __future__ import annotations

import csv
import io
import json
import re
from typing import Any

import click

__all__ = ["Seeds", "render_rows"]

_SEEDS = re.compile(r"(?P<first>\d+)(?:(?:-|\.\.)(?P<last>\d+))?")


class Seeds(click.ParamType):  # type: ignore[type-arg]  # generic from click 8.5; 8.1 cannot be subscripted
    """A seed (``42``) or an inclusive range (``42-51`` or ``42..51``)."""

    name = "SEED|FIRST-LAST"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, list):
            return value
        match = _SEEDS.fullmatch(str(value).strip())
        if match is None:
            self.fail(f"expected a seed or a range like 42-51, got {value!r}", param, ctx)
        first = int(match["first"])
        last = int(match["last"] or first)
        if last < first:
            self.fail(f"the range {value!r} ends before it starts", param, ctx)
        return list(range(first, last + 1))


def render_rows(rows: list[dict[str, Any]], fmt: str) -> str:
    """Result rows as CSV (one column per key, lists joined by ``;``) or JSON items."""
    if fmt == "json":
        # a value the simulator leaves blank in CSV (fragmentation not measured) is null
        items = [{k: None if v == "" else v for k, v in row.items()} for row in rows]
        return json.dumps({"items": items, "count": len(rows)}, indent=2) + "\n"
    if not rows:
        return ""
    columns = list(dict.fromkeys(key for row in rows for key in row))
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=columns, restval="", lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({k: _cell(v) for k, v in row.items()})
    return out.getvalue()


def _cell(value: Any) -> Any:
    if value is None:
        return ""
    if isinstance(value, list | tuple):
        return ";".join(str(v) for v in value)
    return value
