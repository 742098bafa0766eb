"""The operator's metrics port: off by default, from the environment, refused when wrong."""

from __future__ import annotations

import pytest

from wlmap.operator.core.settings import Settings


def test_metrics_are_off_by_default() -> None:
    assert Settings.from_environment({}).metrics_port == 0


def test_metrics_port_from_the_environment() -> None:
    assert Settings.from_environment({"WLMAP_METRICS_PORT": "9402"}).metrics_port == 9402


@pytest.mark.parametrize(
    ("value", "message"),
    [("http", "WLMAP_METRICS_PORT must be a port number, not 'http'"), ("70000", "0 \\(off\\)")],
)
def test_a_wrong_port_is_named(value: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Settings.from_environment({"WLMAP_METRICS_PORT": value})
