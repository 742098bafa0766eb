"""Kubernetes quantities: exact parsing, JSON numbers and compact display."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

import pytest

from wlmap.errors import WorkloadShapeError
from wlmap.quantity import (
    format_bytes,
    format_cores,
    format_quantity,
    parse_quantity,
    quantity_to_number,
)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("100m", Fraction(1, 10)),
        ("1.5", Fraction(3, 2)),
        ("2Gi", 2 * 1024**3),
        ("500Mi", 500 * 1024**2),
        ("0.5Ki", 512),
        ("1e3", 1000),
        ("1E3", 1000),
        ("12e6", 12_000_000),
        ("1e-3", Fraction(1, 1000)),
        ("1k", 1000),
        ("1M", 10**6),
        ("1G", 10**9),
        ("1T", 10**12),
        ("1P", 10**15),
        ("1E", 10**18),  # a lone E is the exa suffix, not an exponent
        ("1Ei", 1024**6),
        ("250u", Fraction(1, 4000)),
        ("3n", Fraction(3, 10**9)),
        ("0", 0),
        ("1.", 1),
        (".5", Fraction(1, 2)),
        ("+2", 2),
        ("-1.5Gi", -3 * 1024**3 // 2),
        ("0.1", Fraction(1, 10)),  # exact: no binary floating point on the way
    ],
)
def test_parse_quantity_strings(text: str, expected: Fraction | int) -> None:
    assert parse_quantity(text) == expected


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (4, 4),
        (0.5, Fraction(1, 2)),
        (0.1, Fraction(1, 10)),  # what YAML `0.1` means, not the nearest binary double
        (Decimal("2.25"), Fraction(9, 4)),
    ],
)
def test_parse_quantity_numbers_from_yaml(value: object, expected: Fraction) -> None:
    assert parse_quantity(value) == expected


@pytest.mark.parametrize(
    "value",
    [
        "",
        ".",
        "e3",
        "1e",
        "2GB",
        "1 Gi",
        " 1",
        "1\n",
        "Gi",
        "1.2.3",
        "0x10",
        "\u0661",  # an Arabic-Indic digit one
        True,
        None,
        [1],
        float("nan"),
        float("inf"),
    ],
)
def test_invalid_quantities_name_value_and_place(value: object) -> None:
    with pytest.raises(WorkloadShapeError) as caught:
        parse_quantity(value, "spec.containers[0].resources.limits.memory")
    message = str(caught.value)
    assert repr(value) in message
    assert "spec.containers[0].resources.limits.memory" in message


def test_huge_exponent_is_refused_not_computed() -> None:
    with pytest.raises(WorkloadShapeError, match="exponent 100000000 is out of range"):
        parse_quantity("1e100000000")


@pytest.mark.parametrize(
    ("cores", "text"),
    [
        (Fraction(8), "8"),
        (Fraction(1, 2), "500m"),
        (Fraction(3, 2), "1.5"),
        (Fraction(2250, 1000), "2.25"),
        (Fraction(1, 10**6), "1m"),  # rounded up to the finest CPU precision
        (Fraction(0), "0"),
        (Fraction(-1, 4), "-250m"),
    ],
)
def test_format_cores(cores: Fraction, text: str) -> None:
    assert format_cores(cores) == text


@pytest.mark.parametrize(
    ("size", "text"),
    [
        (Fraction(64 * 1024**3), "64Gi"),
        (Fraction(3 * 1024**3, 2), "1.5Gi"),
        (Fraction(1025 * 1024**2), "1025Mi"),  # exact in Mi, 1.0009Gi would hide the 1Mi
        (Fraction(10**9), "953.7Mi"),  # 1G in binary units
        (Fraction(512), "512"),
        (Fraction(1024), "1Ki"),
        (Fraction(0), "0"),
    ],
)
def test_format_bytes(size: Fraction, text: str) -> None:
    assert format_bytes(size) == text


def test_format_quantity_dispatches_on_the_resource() -> None:
    assert format_quantity("cpu", parse_quantity("1500m")) == "1.5"
    assert format_quantity("memory", parse_quantity("2Gi")) == "2Gi"
    assert format_quantity("ephemeral-storage", parse_quantity("10Gi")) == "10Gi"
    assert format_quantity("hugepages-2Mi", parse_quantity("4Mi")) == "4Mi"
    assert format_quantity("nvidia.com/gpu", Fraction(2)) == "2"
    assert format_quantity("nvidia.com/gpu", Fraction(1, 2)) == "0.5"


def test_quantity_to_number_gives_json_numbers() -> None:
    assert quantity_to_number("cpu", parse_quantity("8")) == 8
    assert isinstance(quantity_to_number("cpu", parse_quantity("8")), int)
    assert quantity_to_number("cpu", parse_quantity("250m")) == 0.25
    assert quantity_to_number("memory", parse_quantity("1Gi")) == 1024**3
    # Byte amounts round up to a whole byte, as Kubernetes does for 0.5 bytes.
    assert quantity_to_number("memory", parse_quantity("500m")) == 1
    assert quantity_to_number("nvidia.com/gpu", Fraction(3, 2)) == 1.5
