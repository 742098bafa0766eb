"""Untrusted definitions are evaluated in lanes of their own: a slow one neither holds the
work queue's slots nor the threads trusted evaluations use, runs at most ``concurrency``
at a time, and once over budget its waiting workloads are skipped, not evaluated."""

from __future__ import annotations

import asyncio
import threading
import time

from wlmap.operator.core.budgets import Budget
from wlmap.operator.core.evaluations import Evaluations
from wlmap.operator.core.queue import WorkQueue

SLOW = "cluster:WorkloadMap/slow"


class _Slow:
    """A blocking evaluation that takes ``seconds`` and counts how many run at once."""

    def __init__(self, seconds: float) -> None:
        self.seconds, self.running, self.most, self.runs = seconds, 0, 0, 0
        self._lock = threading.Lock()

    def __call__(self) -> str:
        with self._lock:
            self.running += 1
            self.runs += 1
            self.most = max(self.most, self.running)
        time.sleep(self.seconds)
        with self._lock:
            self.running -= 1
        return "failed"


def test_a_trusted_evaluation_does_not_wait_behind_a_slow_definition() -> None:
    slow, definition = _Slow(0.5), object()
    evaluations = Evaluations(Budget(seconds_per_window=100.0, concurrency=2))
    queue = WorkQueue(limit=2)  # every slot would be taken by the slow definition's steps
    latency: list[float] = []

    async def untrusted() -> None:
        await evaluations.run(SLOW, definition, False, slow, lambda r: r == "failed", queue)

    async def trusted() -> None:
        began = time.monotonic()
        await evaluations.run("built-in", None, True, lambda: "ok", lambda r: False, queue)
        latency.append(time.monotonic() - began)

    async def main() -> None:
        steps = [asyncio.create_task(queue.submit(f"lws-{i}", untrusted)) for i in range(6)]
        await asyncio.sleep(0.1)  # the slow steps hold their slots and lanes now
        began = time.monotonic()
        await queue.submit("jobset", trusted)
        latency.append(time.monotonic() - began)
        await asyncio.gather(*steps)

    asyncio.run(main())
    evaluations.close()
    assert max(latency) < 0.3
    assert slow.runs == 6 and slow.most == 2  # the lane's concurrency, not the queue's


def test_a_definition_over_budget_has_its_waiting_workloads_skipped() -> None:
    slow, definition = _Slow(0.3), object()
    budget = Budget(seconds_per_window=0.5, concurrency=1, backoff_first=30.0)
    evaluations = Evaluations(budget)
    results: list[str] = []

    async def one() -> None:
        done = await evaluations.run(SLOW, definition, False, slow, lambda r: False)
        results.append("ran" if done.quarantine is None else done.quarantine.reason)

    async def main() -> None:
        await asyncio.gather(*(one() for _ in range(6)))

    asyncio.run(main())
    evaluations.close()
    # 0.3 s each: the second pushes it over 0.5 s; the rest are not evaluated
    assert results == ["ran", "ran", "OverBudget", "OverBudget", "OverBudget", "OverBudget"]
    assert slow.runs == 2
    other = asyncio.run(evaluations.run("cluster:Karta/other", object(), False, lambda: 1, bool))
    assert other.value == 1 and other.quarantine is None
    evaluations.close()


def test_a_step_gives_its_slot_back_only_while_aside() -> None:
    queue = WorkQueue(limit=1)
    order: list[str] = []
    release = asyncio.Event

    async def main() -> None:
        gate = release()

        async def waiting() -> None:
            async with queue.aside():
                order.append("aside")
                await gate.wait()
            order.append("back")

        async def other() -> None:
            order.append("other")
            gate.set()

        first = asyncio.create_task(queue.submit("a", waiting))
        await asyncio.sleep(0.01)
        await queue.submit("b", other)
        await first
        async with queue.aside():  # outside any step: nothing to give
            order.append("outside")
        await queue.submit("c", lambda: asyncio.sleep(0))

    asyncio.run(asyncio.wait_for(main(), 5))
    assert order == ["aside", "other", "back", "outside"]
