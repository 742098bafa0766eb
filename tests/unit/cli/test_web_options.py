"""``wlmap web``: the file and the live modes refuse each other's options by name, and a
cluster that cannot be reached is one line, before anything listens."""

from __future__ import annotations

import pytest

from tests.unit.cli.runner import EXAMPLES, run


def test_auth_is_refused_with_files(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "web", "-f", str(EXAMPLES), "--auth", "--port", "0")
    assert code == 2 and not out
    assert "--auth checks access to a cluster: leave out -f" in err


def test_file_options_are_refused_without_files(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "web", "--simulation", "results.csv")
    assert code == 2
    assert "--cluster, --trace-* and --simulation read files: give -f" in err


def test_a_missing_kubeconfig_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "--kubeconfig", "/nonexistent/kubeconfig", "web", "--port", "0")
    assert code != 0
    assert err.strip().startswith("error:") and "does not exist" in err
    assert "Traceback" not in err and "serving" not in err
