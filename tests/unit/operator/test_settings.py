"""Operator settings read from the environment: one meaning for every boolean, named errors."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from wlmap.operator.__main__ import main
from wlmap.operator.core.settings import Settings


@pytest.mark.parametrize(
    ("text", "expected"),
    [("true", True), ("On", True), (" YES ", True), ("1", True), ("false", False), ("Off", False)],
)
def test_boolean_variables_accept_the_same_words(text: str, expected: bool) -> None:
    settings = Settings.from_environment({"WLMAP_LEADER_ELECT": text, "WLMAP_CACHED_READS": text})
    assert (settings.leader_elect, settings.cached_reads) == (expected, expected)


def test_an_empty_boolean_variable_keeps_its_default() -> None:
    settings = Settings.from_environment({"WLMAP_LEADER_ELECT": "", "WLMAP_CACHED_READS": ""})
    assert (settings.leader_elect, settings.cached_reads) == (False, True)


@pytest.mark.parametrize(
    ("variable", "value", "message"),
    [
        ("WLMAP_LEADER_ELECT", "ture", "WLMAP_LEADER_ELECT='ture' is not a boolean"),
        ("WLMAP_CACHED_READS", "disabled", "WLMAP_CACHED_READS='disabled' is not a boolean"),
        ("WLMAP_LEASE_SECONDS", "15s", "WLMAP_LEASE_SECONDS='15s' is not a positive number"),
        ("WLMAP_LEASE_SECONDS", "-4", "WLMAP_LEASE_SECONDS='-4' is not a positive number"),
        ("WLMAP_LEASE_SECONDS", "nan", "WLMAP_LEASE_SECONDS='nan' is not a positive number"),
    ],
)
def test_a_misspelt_variable_is_named_not_silently_read_as_off(
    variable: str, value: str, message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        Settings.from_environment({variable: value})


def test_the_operator_refuses_a_bad_variable_with_a_usage_error_and_no_traceback() -> None:
    result = CliRunner().invoke(main, [], env={"WLMAP_CACHED_READS": "nope"})
    assert result.exit_code == 2
    assert "WLMAP_CACHED_READS='nope' is not a boolean" in result.output
    assert "Traceback" not in result.output
