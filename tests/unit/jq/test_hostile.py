"""Hostile programs on the untrusted engine stop with LimitExceededError, whatever runs them.

Each program here hung, exhausted memory or aborted the process before the size budget,
the bounded regular expressions and the worker-only libjq of ``Engine(isolated=True)``.
The time bounds asserted are loose (a loaded machine is slow); without the bounds each
of these runs for minutes or until memory is gone.
"""

from __future__ import annotations

import os
import stat
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from wlmap.errors import ExpressionError, LimitExceededError
from wlmap.jq import Engine, Limits

STOPPED_WITHIN = 30.0


def nested(levels: int, width: int) -> str:
    """``[.[]?, .[]?, ...] | [.[]?, ...] | ...``: each level multiplies the array by width."""
    level = "[" + ", ".join([".[]?"] * width) + "]"
    return " | ".join([level] * levels) + " | length"


HOSTILE = {
    # exponential backtracking; Python's re cannot be interrupted
    "regex backtracking": ('.s | test("(a|aa)+$")', {"s": "a" * 5000 + "b"}),
    # 100 x 20^5 elements: 25 GB of list if collected
    "array fan-out": (nested(5, 20), list(range(100))),
    # 8 MB of text doubled seven times: 1 GB
    "doubling strings": (
        '"a" * 8000000 | . + . | . + . | . + . | . + . | . + . | . + . | . + .',
        0,
    ),
    # an array that shares itself at every level: 2^40 values as a tree
    "shared fan-out": ("[.,.] | " * 40 + "tojson | length", 0),
    "shared fan-out output": ("[.,.] | " * 40 + ".", 0),
    "shared fan-out comparison": ("[.,.] | " * 40 + ". as $x | $x == $x", 0),
    # quadratic string concatenation
    "repeated concatenation": ('reduce .[] as $x (""; . + ($x | tostring))', list(range(10**6))),
    # every kept slice is a copy: 80,000 copies of 80,000 elements
    "kept slices": (
        "[.[]?, .[]?, .[]?, .[]?] as $big | [$big[] | $big[1:]] | length",
        list(range(20000)),
    ),
    # every parse is a new tree: 80,000 trees of 20,000 values
    "kept parses": (
        "tojson as $s | [.[]?, .[]?, .[]?, .[]?] | [.[] | $s | fromjson] | length",
        list(range(20000)),
    ),
    # libjq: the same fan-out through a function (not native)
    "def fan-out": ("def f: [., .]; " + "f | " * 40 + ".", 0),
    # libjq: aborted the whole process when it could not allocate
    "explode": ('"a" * 1e8 | explode | length', 0),
}


@pytest.fixture(scope="module")
def untrusted() -> Iterator[Engine]:
    with Engine(isolated=True) as engine:
        yield engine


@pytest.mark.parametrize("name", list(HOSTILE))
def test_hostile_program_is_stopped(untrusted: Engine, name: str) -> None:
    text, value = HOSTILE[name]
    started = time.monotonic()
    with pytest.raises(LimitExceededError) as caught:
        untrusted.compile(text).all(value)
    assert time.monotonic() - started < STOPPED_WITHIN
    assert caught.value.expression == text
    # the engine (and its worker) still serve the next program
    assert untrusted.compile("def f: . + 1; f").all(1) == [2]


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ('join(",")', ["a", "b", 1, None, True]),
        ("join(null)", ["a", "b"]),
        ("join(1)", ["a", "b"]),
        ('join(",")', ["a", [1]]),
        ("add", [[1], [2, 3], None, [4]]),
        ("add", ["a", "b", None, "c"]),
        ("add", [[1], "a"]),
        ("add", [{"a": 1}, {"b": 2}]),
        (". as $x | add | $x", [[1], [2]]),
    ],
)
def test_linear_join_and_add_give_what_jq_gives(
    untrusted: Engine, text: str, value: list[Any]
) -> None:
    def outcome(engine: Engine) -> Any:
        try:
            return engine.compile(text).all(value)
        except ExpressionError as err:
            return str(err)

    assert outcome(untrusted) == outcome(Engine())


def test_a_long_join_takes_linear_time() -> None:
    # jq defines join as adding the pieces one by one: quadratic, with no step between
    # additions at which the deadline could be checked. Linear, 300,000 pieces take well
    # under a second; quadratic, they copy hundreds of gigabytes. The evaluation gets the
    # whole bound as its time limit, so a busy machine cannot fail a linear join.
    value = list(range(300_000))
    started = time.monotonic()
    with Engine(Limits(timeout_seconds=STOPPED_WITHIN), isolated=True) as engine:
        [joined] = engine.compile('[.[] | tostring] | join(",")').all(value)
    assert time.monotonic() - started < STOPPED_WITHIN
    assert joined == ",".join(map(str, value))


def test_budget_leaves_ordinary_programs_alone(untrusted: Engine) -> None:
    value = {"items": [{"name": f"n{i}", "v": i} for i in range(2000)]}
    program = untrusted.compile('[.items[] | "\\(.name)=\\(.v)"] | join(",") | length')
    assert program.native
    assert program.all(value) == [len(",".join(f"n{i}={i}" for i in range(2000)))]
    assert untrusted.compile("[.items[] | select(.v % 2 == 0)] | length").all(value) == [1000]


def test_trusted_engine_has_no_size_budget() -> None:
    program = Engine(Limits(max_cells=10)).compile("[.[] | . * 2] | add")
    assert program.all(list(range(100))) == [9900]
    with pytest.raises(LimitExceededError, match="size limit"):
        Engine(Limits(max_cells=10), isolated=True).compile("[.[] | . * 2] | add").all(
            list(range(100))
        )


def test_error_about_a_huge_shared_value_is_quick() -> None:
    # describing the value in the message used to encode all of it (2^40 values)
    program = Engine().compile("[.,.] | " * 40 + "{} + .")
    with pytest.raises(ExpressionError, match=r"object \(\{\}\) and array \(\[\[\[\["):
        program.all(0)


def test_worker_start_is_not_counted_against_the_time_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a worker that takes 2 s to start, as Python does on a loaded machine
    slow_python = tmp_path / "slow-python"
    slow_python.write_text(f'#!/bin/sh\nsleep 2\nexec "{sys.executable}" "$@"\n')
    slow_python.chmod(slow_python.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setattr(sys, "executable", os.fspath(slow_python))
    with Engine(Limits(timeout_seconds=0.5), isolated=True) as engine:
        assert engine.compile("def f: . + 1; f").all(1) == [2]
