"""Writing a benchmark's result rows as CSV under ``benchmarks/results/``.

Every placement benchmark commits its rows there; one writer keeps their form the same:
the union of the rows' keys as columns, in first-seen order, empty cells for missing or
None values, and ``\\n`` line ends.
"""

from __future__ import annotations

import csv
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).resolve().parent / "results"


def write_rows(path: Path, rows: Sequence[Mapping[str, Any]], columns: Sequence[str] = ()) -> Path:
    """Write ``rows`` to ``path`` (its folder made if needed); ``columns`` fixes the order."""
    names = list(columns) or list(dict.fromkeys(key for row in rows for key in row))
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=names, restval="", lineterminator="\n")
        writer.writeheader()
        writer.writerows({k: "" if v is None else v for k, v in row.items()} for row in rows)
    return path
