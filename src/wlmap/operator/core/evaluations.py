"""Where the operator evaluates definitions: each untrusted definition in its own lane, so
that one slow or hostile definition's cost lands on its own workloads only.

A built-in definition is evaluated as before, in the event loop's default thread pool (its
programs run natively or in-process libjq; their cost is known). An untrusted definition
(a cluster's ``WorkloadMap``/``Karta``) is evaluated:

- in a thread pool of its own kind (never the default one, which trusted evaluations and
  the placement controller use), at most ``Budget.concurrency`` at a time per definition;
- with its libjq programs on its own worker process (:func:`wlmap.jq.lane`);
- outside the work queue's slots: a step waiting for its definition's lane gives its slot
  to other workloads' steps meanwhile (:meth:`WorkQueue.aside`);
- within a budget (:mod:`wlmap.operator.core.budgets`): a definition over budget or failing
  in a row is quarantined, its workloads skipped until a probe succeeds.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import nullcontext
from dataclasses import dataclass
from typing import Generic, TypeVar

from wlmap import jq
from wlmap.operator.core.budgets import Budget, Budgets, Quarantine
from wlmap.operator.core.queue import WorkQueue

__all__ = ["UNTRUSTED_THREADS", "Evaluated", "Evaluations"]

T = TypeVar("T")
# Threads for every untrusted definition together: with two per definition, four slow
# definitions at once still leave others a thread.
UNTRUSTED_THREADS = 8


@dataclass(frozen=True)
class Evaluated(Generic[T]):
    """One evaluation's result, or the quarantine that skipped it.

    Attributes:
        value: what the evaluation returned (None when skipped).
        quarantine: why it was skipped, or None when it ran.
    """

    value: T | None
    quarantine: Quarantine | None = None


class Evaluations:
    """The lanes, threads and budgets of untrusted definitions in one operator."""

    def __init__(self, budget: Budget | None = None, threads: int = UNTRUSTED_THREADS) -> None:
        self.budgets = Budgets(budget)
        self._threads = threads
        self._lanes: dict[str, asyncio.Semaphore] = {}
        self._executor: ThreadPoolExecutor | None = None

    async def run(
        self,
        origin: str,
        definition: object,
        trusted: bool,
        evaluate: Callable[[], T],
        failed: Callable[[T], bool],
        queue: WorkQueue | None = None,
    ) -> Evaluated[T]:
        """Run ``evaluate`` (blocking) off the event loop in the definition's lane.

        Args:
            origin: the definition's origin (its lane and budget).
            definition: the definition's version (a different one starts a clean record).
            trusted: a built-in definition: no lane, no budget.
            evaluate: the evaluation.
            failed: whether its result counts as a failure.
            queue: the work queue whose slot the calling step holds, given up meanwhile.
        """
        if trusted:
            return Evaluated(await asyncio.to_thread(evaluate))
        budgets = self.budgets
        if (skipped := budgets.admit(origin, definition, time.monotonic())) is not None:
            return Evaluated(None, skipped)
        lane = self._lanes.setdefault(origin, asyncio.Semaphore(budgets.budget.concurrency))
        async with queue.aside() if queue is not None else nullcontext(), lane:
            # asked again: the quarantine may have begun while this step waited
            if (skipped := budgets.admit(origin, definition, time.monotonic())) is not None:
                return Evaluated(None, skipped)
            began = time.monotonic()
            value = await asyncio.get_running_loop().run_in_executor(
                self._pool(), _in_lane, origin, evaluate
            )
        ended = time.monotonic()
        budgets.record(origin, definition, ended - began, failed(value), ended)
        return Evaluated(value)

    def forget(self, origin: str) -> None:
        """A definition was deleted: drop its lane and record."""
        self._lanes.pop(origin, None)
        self.budgets.forget(origin)

    def close(self) -> None:
        """Stop the untrusted threads (running evaluations end on their time limit)."""
        if self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)
            self._executor = None

    def _pool(self) -> ThreadPoolExecutor:
        if self._executor is None:
            self._executor = ThreadPoolExecutor(self._threads, thread_name_prefix="untrusted")
        return self._executor


def _in_lane(origin: str, evaluate: Callable[[], T]) -> T:
    with jq.lane(origin):
        return evaluate()
