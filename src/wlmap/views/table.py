"""Plain-text tables that fit the terminal: the widest columns give way first."""

from __future__ import annotations

from collections.abc import Sequence

MIN_COLUMN = 6
GAP = "  "


def render_table(
    headers: Sequence[str], rows: Sequence[Sequence[str]], width: int | None = None
) -> str:
    """Left-aligned columns separated by two spaces; cells cut with ``…`` to fit ``width``."""
    widths = [max([len(h), *(len(r[i]) for r in rows)]) for i, h in enumerate(headers)]
    if width is not None:
        while sum(widths) + len(GAP) * (len(widths) - 1) > width:
            widest = max(range(len(widths)), key=lambda i: widths[i])
            if widths[widest] <= MIN_COLUMN:
                break
            widths[widest] -= 1
    lines = [_line(headers, widths)]
    lines.extend(_line(row, widths) for row in rows)
    return "\n".join(lines)


def _line(cells: Sequence[str], widths: Sequence[int]) -> str:
    out = []
    for cell, size in zip(cells, widths, strict=True):
        text = cell if len(cell) <= size else cell[: max(size - 1, 0)] + "…"
        out.append(text.ljust(size))
    return GAP.join(out).rstrip()
