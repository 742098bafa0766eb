"""``wlmap metrics serve``: options refused with what is wrong, before any connection."""

from __future__ import annotations

import pytest

from tests.unit.cli.runner import run


def test_a_bad_namespace_selector_is_named(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "metrics", "serve", "--namespace-selector", "a in (")
    assert code == 2 and not out
    assert "Invalid value for --namespace-selector" in err
    assert "Traceback" not in err


def test_namespaces_and_a_selector_together_are_refused(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, _, err = run(
        capsys, "metrics", "serve", "--namespaces", "a", "--namespace-selector", "b=c"
    )
    assert code == 2
    assert "give --namespaces or --namespace-selector, not both" in err


def test_a_port_out_of_range_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "metrics", "serve", "--port", "70000")
    assert code == 2 and "--port" in err


def test_a_missing_kubeconfig_is_one_line(
    capsys: pytest.CaptureFixture[str], tmp_path: object
) -> None:
    code, _, err = run(capsys, "--kubeconfig", "/nonexistent/kubeconfig", "metrics", "serve")
    assert code != 0
    assert err.strip().startswith("error:") and "does not exist" in err
    assert "Traceback" not in err
