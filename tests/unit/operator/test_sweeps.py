"""When gang objects are checked for orphans again: soon after a watch was interrupted
(then again, as the workload watches come back later), periodically otherwise, and only
by a replica that writes."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

import pytest

from wlmap.errors import ClusterError
from wlmap.operator.core.settings import Settings
from wlmap.operator.core.shared import Shared
from wlmap.operator.gangs.sweeps import Sweeps


@dataclass
class Lease:
    leading: bool


async def swept(
    state: Shared, interruptions: list[float], seconds: float, fails: bool = False
) -> list[float]:
    """When sweeps ran (seconds from the start), with watches interrupted at the given
    times, over ``seconds``."""
    loop = asyncio.get_running_loop()
    start = loop.time()
    runs: list[float] = []

    async def sweep(_: Shared) -> None:
        runs.append(loop.time() - start)
        if fails:
            raise ClusterError("GET: connection refused")

    sweeps = Sweeps(state, sweep, period=1.0, after_interruption=(0.1, 0.3))
    task = loop.create_task(sweeps.run())
    for at in interruptions:
        await asyncio.sleep(at - (loop.time() - start))
        sweeps.interrupted()
    await asyncio.sleep(seconds - (loop.time() - start))
    task.cancel()
    return runs


def test_an_interrupted_watch_brings_sweeps_soon_and_then_periodic_ones() -> None:
    runs = asyncio.run(swept(Shared(Settings()), [0.05], 1.6))
    assert runs == pytest.approx(
        [0.15, 0.35, 1.35], abs=0.08
    )  # 0.1 and 0.3 s after it; then a period later


def test_another_interruption_starts_the_sweeps_over() -> None:
    runs = asyncio.run(swept(Shared(Settings()), [0.05, 0.25], 0.8))
    assert runs == pytest.approx([0.15, 0.35, 0.55], abs=0.08)


def test_without_interruptions_sweeps_are_periodic_and_failures_do_not_stop_them() -> None:
    runs = asyncio.run(swept(Shared(Settings()), [], 2.2, fails=True))
    assert runs == pytest.approx([1.0, 2.0], abs=0.08)


def test_a_replica_that_follows_does_not_sweep() -> None:
    state = Shared(Settings(), leader=Lease(leading=False))
    assert asyncio.run(swept(state, [0.05], 1.2)) == []
