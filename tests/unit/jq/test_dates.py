"""jq's date builtins agree with libjq on timestamps as Kubernetes writes them and on bad ones."""

from __future__ import annotations

import os
import subprocess
import sys
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from .test_agreement import assert_agree

ISO = "%Y-%m-%dT%H:%M:%SZ"
TIMESTAMPS = [
    "2024-01-01T00:00:00Z", "2025-06-30T23:59:59Z", "1970-01-01T00:00:00Z",
    "1969-12-31T23:59:59Z", "1969-12-31T23:59:58Z", "2000-02-29T12:00:00Z",
    "1900-03-01T00:00:00Z", "0000-01-01T00:00:00Z", "0000-02-29T00:00:00Z",
    "9999-12-31T23:59:59Z", "2024-02-30T00:00:00Z", "2023-02-29T00:00:00Z",
    "2024-01-01T00:00:60Z", "2024-01-01T00:00:61Z", "2024-1-1T0:0:0Z", "2024-01-01T7:05:09Z",
    " 2024-01-01T00:00:00Z", "2024- 01-01T00:00:00Z", "2024-01-01T00:00:00Z ",
    "2024-01-01T00:00:00Z\t x", "2024-01-01T00:00:00Zx", "2024-01-01T00:00:00.5Z",
    "2024-01-01T00:00:00.123456Z", "2024-01-01T00:00:00+02:00", "2024-01-01T00:00:00-0700",
    "2024-01-01T00:00:00", "2024-01-01", "2024-01-01 00:00:00Z", "2024-01-01t00:00:00z",
    "+2024-01-01T00:00:00Z", "99999-01-01T00:00:00Z", "2024-13-01T00:00:00Z",
    "2024-00-01T00:00:00Z", "2024-01-32T00:00:00Z", "2024-01-00T00:00:00Z",
    "2024-01-01T24:00:00Z", "2024-01-01T00:60:00Z", "2024-01-01T00:00:62Z",
    "2024-01-45T00:00:00Z", "2024-01-01T30:00:00Z", "garbage", "", "Z", "é2024", "2024-01-01T00:00:00Zé",
]  # fmt: skip
NON_STRINGS: list[Any] = [None, True, 0, 1.5, [], {}, ["2024-01-01T00:00:00Z"]]
SECONDS: list[Any] = [
    0, 1, -1, -1.5, 1.5, 0.999, 1704067200, 1704067200.25, 1704067200.999, -62167219200,
    253402300799, 951782400, -2208988800, 2**31, -(2**31), 1e20, -1e20, "x", None, [], True,
]  # fmt: skip
BROKEN_DOWN: list[Any] = [
    [2024, 0, 1, 0, 0, 0, 1, 0], [2024, 1, 30, 25, 61, 61, 0, 0], [2024], [], [2024, 0, 1],
    [2024, 0, 1, 0, 0, 0.5], [2024, 0, 1, 0, 0, -0.5], [1970, 0, 1, 0, 0, -1],
    [1970, 0, 1, 0, 0, 1e10], [2024, -13, 1], [2024, 27, -40, -5, -70, -80],
    [2024.7, 0.9, 1.9, 0, 0, 0], [2024, 0, 1, 0, 0, 0, 1, 0, "rest"],
    [2024, 0, 1, 0, 0, "x"], [2024, 0, 1, 0, 0, 0, "x"], [2024, 0, True], [None],
    [999, 0, 5, 0, 0, 0], [0, 0, 5], "x", 5.5, None,
]  # fmt: skip
FORMATS = [
    ISO, "%Y-%m-%d", "%H:%M", "%Y-%m-%dT%H:%M:%S%Z", "%FT%T%Z", "%F %T", "%d/%m/%Y",
    "%Y%m%d%H%M%S", "%e.%m.%Y", " %Y - %m ", "%Y-%j", "%Y-%m-%dT%H:%M:%S.%fZ", "%s", "%z",
    "%Y %b", "", "literal", "%", "%%Y",
]  # fmt: skip
# Formats evaluated natively; the others (zone names, %j, %s, ...) are left to libjq.
NATIVE_STRPTIME = {ISO, "%Y-%m-%d", "%H:%M", "%F %T", "%d/%m/%Y", "%Y%m%d%H%M%S", "%e.%m.%Y"}
NATIVE_STRPTIME |= {" %Y - %m ", "", "literal"}
NATIVE_STRFTIME = NATIVE_STRPTIME | {"%Y-%j"}


def _agree_natively(text: str, value: Any) -> None:
    assert assert_agree(text, value), f"{text} on {value!r} fell back to libjq"


@pytest.mark.parametrize("name", ["fromdateiso8601", "fromdate"])
@pytest.mark.parametrize("value", TIMESTAMPS + NON_STRINGS)
def test_iso_parsing_agrees(name: str, value: Any) -> None:
    _agree_natively(name, value)


@pytest.mark.parametrize("name", ["todateiso8601", "todate", "gmtime", "gmtime | mktime"])
@pytest.mark.parametrize("value", SECONDS)
def test_iso_formatting_agrees(name: str, value: Any) -> None:
    if value in (1e20, -1e20):  # beyond years 0-9999 libjq decides
        assert not assert_agree(name, value)
        return
    _agree_natively(name, value)


@pytest.mark.parametrize("name", ["mktime", f'strftime("{ISO}")', 'strftime("%e|%j|%Y")'])
@pytest.mark.parametrize("value", BROKEN_DOWN)
def test_broken_down_times_agree(name: str, value: Any) -> None:
    _agree_natively(name, value)


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("value", TIMESTAMPS[:8] + TIMESTAMPS[20:30])
def test_strptime_formats_agree_or_fall_back(fmt: str, value: str) -> None:
    text = f"strptime({fmt!r}) | ., mktime".replace("'", '"')
    if fmt in NATIVE_STRPTIME:
        _agree_natively(text, value)
    else:
        assert_agree(text, value)


@pytest.mark.parametrize("fmt", FORMATS)
def test_strftime_formats_agree_or_fall_back(fmt: str) -> None:
    text = f"strftime({fmt!r})".replace("'", '"')
    if fmt in NATIVE_STRFTIME:
        _agree_natively(text, 1704067200.5)
    else:
        assert not assert_agree(text, 1704067200.5)


def test_bad_format_arguments_agree() -> None:
    _agree_natively("strptime(1)", "2024")
    _agree_natively("strftime(1)", 0)
    _agree_natively("strftime(1)", "x")


@settings(max_examples=300, deadline=None)
@given(
    st.integers(0, 9999), st.integers(1, 12), st.integers(1, 31),
    st.integers(0, 23), st.integers(0, 59), st.integers(0, 61),
)  # fmt: skip
def test_any_valid_timestamp_round_trips_as_libjq(
    year: int, month: int, day: int, hour: int, minute: int, second: int
) -> None:
    text = f"{year:04d}-{month:02d}-{day:02d}T{hour:02d}:{minute:02d}:{second:02d}Z"
    _agree_natively("fromdateiso8601 | ., todate, gmtime", text)


@settings(max_examples=300, deadline=None)
@given(st.floats(-62167219200, 253402300799, allow_nan=False))
def test_any_seconds_agree(seconds: float) -> None:
    _agree_natively("todate, gmtime, (gmtime | mktime)", seconds)


def test_libjq_dates_ignore_the_local_time_zone() -> None:
    # Why mktime may be used in definitions: libjq computes it with timegm, in UTC.
    script = (
        "import jq; print(jq.compile('[2024, 6, 1, 12] | mktime, "
        '("2024-07-01T12:00:00Z" | fromdate | todate)\').input_value(None).all())'
    )
    env = {**os.environ, "TZ": "America/New_York"}
    out = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "[1719835200, '2024-07-01T12:00:00Z']"
    _agree_natively("[2024, 6, 1, 12] | mktime", None)
