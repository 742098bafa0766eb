"""Reading simulation results for the Simulations page: a gangs CSV becomes cost tables,
a bad value or a missing column is named with its file, line and column."""

from __future__ import annotations

from pathlib import Path

import pytest

from wlmap.app.results import GANG_COLUMNS, gang_costs, simulation_results
from wlmap.errors import PlacementInputError

HEADER = "scenario,policy,seed,load,queue," + ",".join(GANG_COLUMNS)


def gangs_file(tmp_path: Path, *rows: str) -> str:
    path = tmp_path / "gangs.csv"
    path.write_text("\n".join([HEADER, *rows]) + "\n", encoding="utf-8")
    return str(path)


def test_seeds_are_averaged_per_load_and_an_empty_column_stays_empty(tmp_path: Path) -> None:
    path = gangs_file(
        tmp_path,
        "lingjun,wlmap,1,0.8,skip,1.0,10,70,5,,90,100",
        "lingjun,wlmap,2,0.8,skip,2.0,12,72,7,,95,100",
        "lingjun,wlmap,1,0.6,skip,0.5,9,50,0,,60,60",
    )
    (six, eight) = gang_costs(path)
    assert (six["load"], eight["load"]) == (0.6, 0.8)
    policies = eight["policies"]
    assert isinstance(policies, list)
    (row,) = policies
    assert row["seeds"] == 2
    assert (row["cost_mean"], row["occupancy_pct"], row["required_satisfied_pct"]) == (
        1.5,
        71.0,
        None,
    )
    assert simulation_results(path)["gangs"] == [six, eight]


@pytest.mark.parametrize(
    ("row", "says"),
    [
        (
            "lingjun,wlmap,1,0.8,skip,cheap,10,70,5,,90,100",
            "row 2 column 'cost_mean': expected a number >= 0, got 'cheap'",
        ),
        (
            "lingjun,wlmap,1,-1,skip,1,10,70,5,,90,100",
            "row 2 column 'load': expected a number >= 0, got '-1'",
        ),
    ],
)
def test_a_bad_value_is_located(tmp_path: Path, row: str, says: str) -> None:
    path = gangs_file(tmp_path, row)
    with pytest.raises(PlacementInputError) as raised:
        gang_costs(path)
    assert str(raised.value) == f"{path} {says}"


def test_a_missing_column_is_named(tmp_path: Path) -> None:
    path = tmp_path / "gangs.csv"
    path.write_text("scenario,policy,seed,load,queue,cost_mean\nlingjun,wlmap,1,0.8,skip,1\n")
    with pytest.raises(PlacementInputError) as raised:
        simulation_results(str(path))
    assert str(raised.value).startswith(
        f"{path} row 1 column 'multi_pod_cost_mean': missing column; "
        "expected the rows of wlmap simulate gangs"
    )
