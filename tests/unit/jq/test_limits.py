"""Evaluations are bounded: outputs, input size, and wall time (native and isolated libjq)."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from wlmap.errors import ExpressionError, LimitExceededError
from wlmap.jq import Engine, Limits

# Statically safe, not native (it defines a function), and far too slow for 1 second.
RUNAWAY = "def one: 1; [.[] as $a | .[] as $b | .[] as $c | one] | length"


@pytest.fixture
def isolated() -> Iterator[Engine]:
    engine = Engine(Limits(timeout_seconds=1.0), isolated=True)
    yield engine
    engine.close()


def test_output_limit_native() -> None:
    program = Engine(Limits(max_outputs=10)).compile(".[]")
    assert program.native
    assert len(program.all(list(range(10)))) == 10
    with pytest.raises(LimitExceededError, match="more than 10 outputs"):
        program.all(list(range(11)))


def test_output_limit_libjq() -> None:
    program = Engine(Limits(max_outputs=10)).compile("def f: .[]; f")
    assert not program.native
    with pytest.raises(LimitExceededError, match="more than 10 outputs"):
        program.all(list(range(11)))


def test_first_does_not_hit_the_output_limit() -> None:
    program = Engine(Limits(max_outputs=1)).compile(".[]")
    assert program.first(list(range(100))) == 0


def test_native_timeout() -> None:
    engine = Engine(Limits(timeout_seconds=0.2))
    program = engine.compile("reduce (.[] as $a | .[] as $b | .[]) as $x (0; . + $x)")
    assert program.native
    started = time.monotonic()
    with pytest.raises(LimitExceededError, match="time limit"):
        program.all(list(range(2000)))
    assert time.monotonic() - started < 2.0


def test_native_string_repetition_is_bounded() -> None:
    program = Engine().compile('"ab" * .')
    with pytest.raises(LimitExceededError, match="repetition"):
        program.all(10**9)


def test_input_size_limit_applies_to_libjq() -> None:
    program = Engine(Limits(max_input_bytes=100)).compile("def f: .; f")
    with pytest.raises(LimitExceededError, match="exceeds 100"):
        program.all(["x" * 200])


def test_isolated_worker_is_killed_and_restarted(isolated: Engine) -> None:
    program = isolated.compile(RUNAWAY)
    assert not program.native
    started = time.monotonic()
    with pytest.raises(LimitExceededError, match="exceeded"):
        program.all(list(range(400)))
    assert time.monotonic() - started < 3.0
    # The worker comes back for the next evaluation.
    assert program.all([1, 2]) == [8]
    assert isolated.compile("def f: . + 1; f").all(1) == [2]


def test_isolated_reports_jq_errors_and_compile_errors(isolated: Engine) -> None:
    with pytest.raises(ExpressionError, match="is not defined"):
        isolated.compile("nosuchfunction(1)")
    with pytest.raises(ExpressionError, match="Cannot index number"):
        isolated.compile("def f: .a; f").all(1)


def test_isolated_memory_cap(isolated: Engine) -> None:
    program = isolated.compile('def f: .; reduce (.[] | f) as $i ("abcdefgh"; . + .)')
    with pytest.raises(LimitExceededError):
        program.all(list(range(40)))
    assert isolated.compile("def f: 1; f").all(None) == [1]
