"""Rows of a CSV input file, each with its line number, every problem located.

The placement readers (openb traces, the Lingjun topology, Tiresias cluster specs and job
samples) share it, so a bad file is reported the same way whichever one reads it.
"""

from __future__ import annotations

import csv
from collections.abc import Iterator, Sequence
from pathlib import Path

from wlmap.errors import PlacementInputError

__all__ = ["csv_rows"]


def csv_rows(path: Path, required: Sequence[str]) -> Iterator[tuple[int, dict[str, str]]]:
    """(line number, row) for each data row; the header must name every required column.

    Header names are read without surrounding spaces or a byte-order mark.

    Raises:
        PlacementInputError: the file cannot be opened or read as CSV, it is empty, a
            required column is missing, or a row has fewer fields than the header.
    """
    try:
        handle = path.open(newline="", encoding="utf-8-sig")
    except OSError as exc:
        raise PlacementInputError(
            f"cannot open: {exc.strerror or exc}", file=str(path), row=None, column=None
        ) from None
    with handle:
        reader = csv.DictReader(handle)
        try:
            header = [name.strip() for name in reader.fieldnames or []]
        except (UnicodeDecodeError, csv.Error) as exc:
            raise PlacementInputError(
                f"not a readable CSV file: {exc}", file=str(path), row=1, column=None
            ) from None
        if not header:
            raise PlacementInputError(
                f"empty file; expected a header row with {', '.join(required)}",
                file=str(path),
                row=1,
                column=None,
            )
        reader.fieldnames = header
        for name in required:
            if name not in header:
                raise PlacementInputError(
                    f"missing column; the header has {', '.join(header)}",
                    file=str(path),
                    row=1,
                    column=name,
                )
        try:
            for row in reader:
                line = reader.line_num
                if None in row or any(row[c] is None for c in required):
                    raise PlacementInputError(
                        f"expected {len(header)} fields as in the header",
                        file=str(path),
                        row=line,
                        column=None,
                    )
                yield line, row
        except (UnicodeDecodeError, csv.Error) as exc:
            raise PlacementInputError(
                f"not readable as CSV: {exc}", file=str(path), row=reader.line_num, column=None
            ) from None
