"""Reading the CSV that ``wlmap simulate`` writes, for ``wlmap simulate plot`` and the web
page's Simulations; allocation curves from its rows.

Only the allocation rows are plotted; every value the plot uses is checked, and a bad one
is reported with the file, its line and the column.
"""

from __future__ import annotations

import csv
import io
import math
from pathlib import Path

from wlmap.errors import PlacementInputError

REQUIRED = ("policy", "arrived_pct", "allocation_pct")


def read_results(path: str) -> list[dict[str, str]]:
    """The rows of a results file, with ``arrived_pct`` and ``allocation_pct``
    checked to be numbers from 0 (allocation at most 100).

    Raises:
        PlacementInputError: the file cannot be read, a column is missing (for example a
            ``--placements`` file), or a value is not a number in range.
    """
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise PlacementInputError(f"cannot read: {exc}", file=path, row=None, column=None) from None
    with io.StringIO(text, newline="") as handle:
        reader = csv.DictReader(handle)
        header = reader.fieldnames or []
        for name in REQUIRED:
            if name not in header:
                raise PlacementInputError(
                    "missing column; expected the allocation rows of wlmap simulate "
                    f"(the header has {', '.join(header) or 'nothing'})",
                    file=path,
                    row=1,
                    column=name,
                )
        rows = []
        for row in reader:
            for name, top in (("arrived_pct", math.inf), ("allocation_pct", 100.0)):
                _check(row.get(name) or "", top, path, reader.line_num, name)
            rows.append(row)
    if not rows:
        raise PlacementInputError("no result rows", file=path, row=None, column=None)
    return rows


def _check(text: str, top: float, path: str, line: int, column: str) -> None:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0 <= value <= top:
        expected = "a number >= 0" if top == math.inf else f"a number from 0 to {top:g}"
        raise PlacementInputError(
            f"expected {expected}, got {text!r}", file=path, row=line, column=column
        )


def allocation_curves(path: str) -> list[dict[str, object]]:
    """The allocation curves of a results file, one per trace and policy, as JSON: the
    arrived shares and the mean, lowest and highest allocation over the seeds (percent).

    Raises:
        PlacementInputError: as :func:`read_results`.
    """
    from wlmap.placement.packing import curves  # noqa: PLC0415 - loads the engine's door

    return [
        {
            "trace": c.trace,
            "policy": c.policy,
            "arrived": list(c.arrived),
            "mean": list(c.mean),
            "low": list(c.low),
            "high": list(c.high),
            "seeds": c.seeds,
        }
        for c in curves(read_results(path))
    ]
