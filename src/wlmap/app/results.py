"""Reading the CSVs that ``wlmap simulate`` and ``wlmap simulate gangs`` write, for
``wlmap simulate plot`` and the web page's Simulations: allocation curves from the first,
gang cost tables from the second.

Every value drawn is checked, and a bad one is reported with the file, its line and the
column.
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
    header, rows = _read(path)
    _require(header, rows, REQUIRED, path, "the allocation rows of wlmap simulate")
    for line, row in rows:
        for name, top in (("arrived_pct", math.inf), ("allocation_pct", 100.0)):
            _check(row.get(name) or "", top, path, line, name)
    return [row for _, row in rows]


def _read(path: str) -> tuple[list[str], list[tuple[int, dict[str, str]]]]:
    """The header and the rows of a CSV file, each row with its line number."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise PlacementInputError(f"cannot read: {exc}", file=path, row=None, column=None) from None
    with io.StringIO(text, newline="") as handle:
        reader = csv.DictReader(handle)
        header = list(reader.fieldnames or [])
        rows = [(reader.line_num, row) for row in reader]
    return header, rows


def _require(
    header: list[str],
    rows: list[tuple[int, dict[str, str]]],
    names: tuple[str, ...],
    path: str,
    expected: str,
) -> None:
    """Every column of ``names`` in the header, and a row at least."""
    for name in names:
        if name not in header:
            raise PlacementInputError(
                f"missing column; expected {expected} "
                f"(the header has {', '.join(header) or 'nothing'})",
                file=path,
                row=1,
                column=name,
            )
    if not rows:
        raise PlacementInputError("no result rows", file=path, row=None, column=None)


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


GANG_KEYS = ("scenario", "queue", "load")
GANG_COLUMNS = (
    "cost_mean",
    "multi_pod_cost_mean",
    "occupancy_pct",
    "delay_p95_s",
    "required_satisfied_pct",
    "admitted",
    "arrived",
)


def gang_costs(path: str) -> list[dict[str, object]]:
    """The gang cost tables of a ``wlmap simulate gangs`` CSV, as JSON: one table per
    scenario, queue and load, one row per policy with the mean of each column of
    :data:`GANG_COLUMNS` over its seeds (null where every seed left it empty).

    Raises:
        PlacementInputError: the file cannot be read, a column is missing, or a value is
            not a number from 0.
    """
    header, rows = _read(path)
    _require(
        header,
        rows,
        ("policy", *GANG_KEYS, *GANG_COLUMNS),
        path,
        "the rows of wlmap simulate gangs",
    )
    tables: dict[tuple[str, ...], dict[str, list[dict[str, str]]]] = {}
    for line, row in rows:
        _check(row["load"], math.inf, path, line, "load")
        for name in GANG_COLUMNS:
            if row[name] != "":
                _check(row[name], math.inf, path, line, name)
        key = tuple(row[k] for k in GANG_KEYS)
        tables.setdefault(key, {}).setdefault(row["policy"], []).append(row)
    return [
        {
            "scenario": scenario,
            "queue": queue,
            "load": float(load),
            "policies": [
                {"policy": policy, "seeds": len(runs), **{n: _mean(runs, n) for n in GANG_COLUMNS}}
                for policy, runs in by_policy.items()
            ],
        }
        for (scenario, queue, load), by_policy in sorted(
            tables.items(), key=lambda t: (t[0][0], t[0][1], float(t[0][2]))
        )
    ]


def _mean(runs: list[dict[str, str]], name: str) -> float | None:
    values = [float(r[name]) for r in runs if r[name] != ""]
    return sum(values) / len(values) if values else None


def simulation_results(path: str) -> dict[str, object]:
    """A results file as the Simulations page draws it: allocation curves when it holds
    ``wlmap simulate`` rows, gang cost tables when it holds ``wlmap simulate gangs`` rows.

    Raises:
        PlacementInputError: as :func:`read_results` or :func:`gang_costs`.
    """
    header, _ = _read(path)
    if "cost_mean" in header and "arrived_pct" not in header:
        return {"file": path, "curves": [], "gangs": gang_costs(path)}
    return {"file": path, "curves": allocation_curves(path), "gangs": []}
