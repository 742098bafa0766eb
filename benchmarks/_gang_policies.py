"""The gang policies the benchmarks run: the registered ones, else the tests' first fit.

A build without any registered gang policy still measures the engine (capacity updates,
the simulator, the checker) with the simple first-fit policy of the unit tests; every
benchmark says which policies it ran.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

from wlmap.placement.topology.policy import GangPolicy
from wlmap.placement.topology.registry import GANG_POLICIES

ROOT = Path(__file__).resolve().parents[1]
TRACES = ROOT.parent / "shared" / "traces"


def gang_policies() -> tuple[dict[str, Callable[..., GangPolicy]], str]:
    """The policies by name, and a note on where they come from."""
    if GANG_POLICIES:
        return dict(GANG_POLICIES), "registered gang policies"
    sys.path.insert(0, str(ROOT))
    from tests.unit.placement.topology.first_fit import FirstFit  # noqa: PLC0415

    return {"first-fit": FirstFit}, (
        "no gang policy is registered in this build: the tests' first-fit policy stands in "
        "(it measures the engine, not a product policy)"
    )
