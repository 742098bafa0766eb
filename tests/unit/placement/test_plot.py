"""Result rows become one curve per trace and policy: the mean over seeds, with their range."""

from __future__ import annotations

from wlmap.placement.packing import curves
from wlmap.placement.packing.plot import BOUND


def row(
    policy: str, seed: int, arrived: int, allocation: float, trace: str = "default"
) -> dict[str, str]:
    return {
        "trace": trace,
        "policy": policy,
        "seed": str(seed),
        "arrived_pct": str(arrived),
        "allocation_pct": str(allocation),
    }


def test_curves_average_the_seeds_and_keep_their_range() -> None:
    rows = [
        row("fgd", 42, 100, 95.0),
        row("fgd", 43, 100, 96.0),
        row("fgd", 42, 50, 50.0),
        row("fgd", 43, 50, 50.0),
        row(BOUND, 42, 100, 97.0),
        row("fgd", 42, 100, 80.0, trace="gpushare80"),
    ]
    found = {(c.trace, c.policy): c for c in curves(rows)}
    fgd = found[("default", "fgd")]
    assert (fgd.arrived, fgd.mean, fgd.low, fgd.high, fgd.seeds) == (
        (50.0, 100.0),
        (50.0, 95.5),
        (50.0, 95.0),
        (50.0, 96.0),
        2,
    )
    assert found[("default", BOUND)].mean == (97.0,)
    assert found[("gpushare80", "fgd")].seeds == 1
