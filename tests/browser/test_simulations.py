"""The Simulations page in a real browser: the allocation curves drawn for a `wlmap simulate`
run on the openb trace, read back from the chart, equal the CSV's means per arrived share,
and the gang cost tables equal the means over seeds of a `wlmap simulate gangs` run."""

from __future__ import annotations

import csv
import subprocess
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from tests.browser.conftest import Serve, shown
from tests.traces import openb


def simulate(out: Path, *args: str) -> Path:
    done = subprocess.run(
        [sys.executable, "-m", "wlmap.cli", "simulate", *args, "--output-file", str(out)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return out


@pytest.fixture(scope="module")
def curves_csv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A short run of two policies and two seeds on the openb cluster and default trace."""
    out = tmp_path_factory.mktemp("simulate") / "allocation.csv"
    nodes, pods = openb("gpu_node"), openb("default")
    policies = ("--policy", "fgd", "--policy", "bestfit")
    return simulate(
        out,
        "--nodes",
        str(nodes),
        "--pods",
        str(pods),
        *policies,
        "--seeds",
        "1-2",
        "--ratio",
        "0.95",
    )


@pytest.fixture(scope="module")
def gangs_csv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("simulate") / "gangs.csv"
    return simulate(
        out, "gangs", "--topology", "n256g8", "--policy", "wlmap", "--policy", "kueue-bestfit",
        "--load", "0.6", "--load", "0.9", "--seeds", "1-2", "--hours", "2",
    )  # fmt: skip


def read(path: Path) -> list[dict[str, str]]:
    with path.open(newline="") as handle:
        return list(csv.DictReader(handle))


def drawn_curves(chart: Any) -> dict[str, list[tuple[float, float]]]:
    """Each policy's line read back from a chart through its axes: (arrived %, allocated %)."""
    left, top, width, height, x0, x1, y0, y1 = map(float, chart.get_attribute("data-box").split())
    found = {}
    for line in chart.query_selector_all("polyline[data-policy]"):
        points = [p.split(",") for p in line.get_attribute("points").split()]
        found[line.get_attribute("data-policy")] = [
            (
                x0 + (float(x) - left) / width * (x1 - x0),
                y0 + (top + height - float(y)) / height * (y1 - y0),
            )
            for x, y in points
        ]
    return found


def test_allocation_curves_drawn_equal_the_csv(page: Any, serve: Serve, curves_csv: Path) -> None:
    by_policy: dict[str, dict[float, list[float]]] = defaultdict(lambda: defaultdict(list))
    for row in read(curves_csv):
        by_policy[row["policy"]][float(row["arrived_pct"])].append(float(row["allocation_pct"]))
    expected = {
        policy: [(a, sum(v) / len(v)) for a, v in sorted(values.items())]
        for policy, values in by_policy.items()
    }
    assert set(expected) == {"fgd", "bestfit"} and expected["fgd"][-1][0] >= 90

    shown(page, serve(simulations=(str(curves_csv),)) + "#/simulations")
    charts = page.query_selector_all("svg.curves")
    assert len(charts) == 2  # the whole run, and its saturated end
    for chart in charts:
        drawn = drawn_curves(chart)
        assert set(drawn) == set(expected)
        for policy, points in expected.items():
            flat = [v for point in drawn[policy] for v in point]
            assert flat == pytest.approx([v for point in points for v in point], abs=1e-6)
    assert page.text_content("[data-trace] h3") == "Allocation on trace default"
    assert page.errors == []


def test_gang_cost_tables_equal_the_csv_means(page: Any, serve: Serve, gangs_csv: Path) -> None:
    runs: dict[tuple[str, float, str], list[dict[str, str]]] = defaultdict(list)
    for row in read(gangs_csv):
        runs[(row["scenario"], float(row["load"]), row["policy"])].append(row)
    assert len(runs) == 4

    shown(page, serve(simulations=(str(gangs_csv),)) + "#/simulations")
    tables = page.query_selector_all("[data-gangs]")
    assert [t.get_attribute("data-gangs") for t in tables] == [
        "n256g8 0.6 skip",
        "n256g8 0.9 skip",
    ]
    checked = 0
    for table in tables:
        scenario, load, _ = table.get_attribute("data-gangs").split()
        for tr in table.query_selector_all("tbody tr"):
            policy = tr.get_attribute("data-policy")
            mine = runs[(scenario, float(load), policy)]
            assert int(tr.query_selector("td:nth-child(2)").text_content()) == len(mine)
            for cell in tr.query_selector_all("td[data-col]"):
                column = cell.get_attribute("data-col")
                values = [float(r[column]) for r in mine if r[column] != ""]
                shown_value = cell.text_content()
                if not values:
                    assert shown_value == "-"
                    continue
                assert float(shown_value) == pytest.approx(sum(values) / len(values), abs=5e-4)
            cost = sum(float(r["cost_mean"]) for r in mine) / len(mine)
            bar_value = table.query_selector(f"svg.bars text[data-value='{policy}']")
            assert float(bar_value.text_content()) == pytest.approx(cost, abs=5e-4)
            checked += 1
        widths = {
            b.get_attribute("data-bar"): float(b.get_attribute("width"))
            for b in table.query_selector_all("svg.bars rect[data-bar]")
        }
        costs = {
            p: sum(float(r["cost_mean"]) for r in rs) / len(rs)
            for (s, ld, p), rs in runs.items()
            if (s, ld) == (scenario, float(load))
        }
        assert sorted(widths, key=widths.__getitem__) == sorted(costs, key=costs.__getitem__)
    assert checked == 4
    assert page.errors == []


def test_a_csv_of_neither_kind_is_located(page: Any, serve: Serve, tmp_path: Path) -> None:
    wrong = tmp_path / "placements.csv"
    wrong.write_text("policy,seed,pod,node\nfgd,1,p-0,n-0\n")
    shown(page, serve(simulations=(str(wrong),)) + "#/simulations")
    (problem,) = [p.text_content() for p in page.query_selector_all("#problems li")]
    assert problem.startswith(f"{wrong} row 1 column 'arrived_pct': missing column")
    assert "Traceback" not in page.content()
