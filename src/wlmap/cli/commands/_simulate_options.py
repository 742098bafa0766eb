"""What ``wlmap simulate`` and its ``gangs`` and ``dra`` subcommands share: the seed type,
the options that say where and how rows go, and writing them."""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:
    from wlmap.cli._session import Session

__all__ = [
    "Seeds",
    "output_file_option",
    "render_rows",
    "rows_options",
    "seeds_option",
    "write_output",
]

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


def seeds_option(example: str = "1-5") -> Callable[[Any], Any]:
    """``--seed``/``--seeds``: seeds of the runs, repeatable, each a seed or a range."""
    return click.option(
        "--seed",
        "--seeds",
        "seeds",
        multiple=True,
        type=Seeds(),
        help=f"Seed of a run (repeatable), or a range like {example}.  [default: 42]",
    )


def output_file_option() -> Callable[[Any], Any]:
    """``--output-file``: write the output to a file instead of stdout."""
    return click.option(
        "--output-file",
        metavar="FILE",
        type=click.Path(dir_okay=False),
        help="Write here, not stdout.",
    )


def rows_options(function: Callable[..., Any]) -> Callable[..., Any]:
    """``-o csv|json|yaml`` (CSV for runs, YAML for one workload's placement) and
    ``--output-file``, as the ``gangs`` and ``dra`` subcommands take them."""
    function = output_file_option()(function)
    return click.option(
        "-o",
        "--output",
        "fmt",
        type=click.Choice(["csv", "json", "yaml"]),
        help="Output format.  [default: csv; yaml with -f]",
    )(function)


def write_output(session: Session, text: str, output_file: str | None) -> None:
    """``text`` to ``output_file`` when one is given, else to stdout."""
    if output_file:
        Path(output_file).write_text(text, encoding="utf-8")
    else:
        session.output.data(text)
