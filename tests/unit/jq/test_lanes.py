"""Untrusted evaluations in different lanes run on different worker processes: one slow
definition's libjq programs do not hold up another's."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import pytest

from wlmap import jq
from wlmap.errors import LimitExceededError
from wlmap.jq import Engine, Limits
from wlmap.jq._pool import WorkerPool

# Statically safe, not native (it defines a function), and far too slow for its limit.
RUNAWAY = "def one: 1; [.[] as $a | .[] as $b | .[] as $c | one] | length"
QUICK = "def f: . + 1; f"


@pytest.fixture
def isolated() -> Iterator[Engine]:
    engine = Engine(Limits(timeout_seconds=2.0), isolated=True)
    # start the workers and compile first: neither is what is measured
    for key in (None, "slow", "quick"):
        with jq.lane(key):
            assert engine.compile(QUICK).all(1) == [2]
    engine.compile(RUNAWAY)
    yield engine
    engine.close()


def _slow_in_background(engine: Engine, key: str | None) -> tuple[threading.Thread, list[str]]:
    failures: list[str] = []
    started = threading.Event()

    def run() -> None:
        with jq.lane(key):
            started.set()
            try:
                engine.compile(RUNAWAY).all(list(range(400)))
            except LimitExceededError as exc:
                failures.append(str(exc))

    thread = threading.Thread(target=run)
    thread.start()
    started.wait()
    time.sleep(0.3)  # the slow request is in its worker now
    return thread, failures


def test_a_slow_lane_does_not_delay_another(isolated: Engine) -> None:
    thread, failures = _slow_in_background(isolated, "slow")
    began = time.monotonic()
    with jq.lane("quick"):
        assert isolated.compile(QUICK).all(41) == [42]
    waited = time.monotonic() - began
    thread.join()
    assert failures and "exceeded" in failures[0]
    assert waited < 1.0


def test_without_lanes_evaluations_share_one_worker(isolated: Engine) -> None:
    thread, failures = _slow_in_background(isolated, None)
    began = time.monotonic()
    assert isolated.compile(QUICK).all(41) == [42]
    waited = time.monotonic() - began
    thread.join()
    assert failures
    assert waited > 1.0  # it waited for the slow evaluation to be killed


def test_lanes_past_the_cap_share_workers_the_same_way_every_time() -> None:
    pool = WorkerPool(2**28, 10.0, cap=3)
    own = [pool.worker(f"definition-{i}") for i in range(3)]
    assert len({id(w) for w in own}) == 3
    assert pool.worker("definition-0") is own[0]
    shared = pool.worker("one-more")
    assert any(shared is w for w in own)
    assert pool.worker("one-more") is shared
    assert pool.worker(None) is pool.default
    assert all(pool.default is not w for w in own)
    pool.close()
