"""Hostile local definitions (``--definitions``) through the CLI: each is stopped and
reported where it is, without a traceback; ``validate`` warns about every one of them."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.corpus import corpus_path
from tests.hostile import EXPRESSION_FIELD, HOSTILE, hostile_yaml
from tests.unit.cli.runner import run
from wlmap.cli._exits import OK


def jobset() -> Path:
    """A real JobSet (read when a test runs: collection must not need the corpus)."""
    return corpus_path("jobset/tpu-multislice-v6e-jax.yaml")


# what `validate` says about each (its cost warning)
WARNINGS = {
    "regex backtracking": "regular expression '(a|aa)+$' in test/1 can backtrack exponentially",
    "array fan-out": "fan-out multiplied along a pipeline",
    "doubling strings": "a value added to itself 7 times",
    "def fan-out": "def f applied to its own output 40 times",
    "explode": "a string repeated 1e+08 times",
}


def written(tmp_path: Path, name: str) -> Path:
    path = tmp_path / "hostile.yaml"
    path.write_text(hostile_yaml(HOSTILE[name]))
    return path


@pytest.mark.parametrize("name", list(HOSTILE))
def test_describe_with_a_hostile_definition_reports_where_it_stopped(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, name: str
) -> None:
    definitions = written(tmp_path, name)
    code, out, err = run(capsys, "--definitions", str(definitions), "describe", "-f", str(jobset()))
    assert code == OK
    assert out.startswith("JobSet/v6e-multislice  definition: hostile")
    assert "Status: Undefined" in out
    # read problems are warnings on stderr, naming the workload
    [warning] = [line for line in err.splitlines() if "definition 'hostile', component" in line]
    assert warning.startswith("warning: JobSet/v6e-multislice: ")
    assert f"definition 'hostile', component 'x', field {EXPRESSION_FIELD}" in warning
    assert "exceeded" in warning
    assert "Traceback" not in out + err


def test_explode_does_not_abort_the_command(tmp_path: Path) -> None:
    # libjq aborted the whole process (exit 134) when it could not allocate
    definitions = written(tmp_path, "explode")
    command = [sys.executable, "-m", "wlmap.cli", "--definitions", str(definitions)]
    done = subprocess.run(
        [*command, "describe", "-f", str(jobset())],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == OK, done.stderr
    assert "exceeded the jq worker's memory limit" in done.stderr
    assert "Traceback" not in done.stdout + done.stderr


def test_validate_warns_about_every_hostile_definition(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    paths = []
    for index, name in enumerate(HOSTILE):
        path = tmp_path / f"hostile-{index}.yaml"
        path.write_text(hostile_yaml(HOSTILE[name]))
        paths.append(path)
    code, out, _ = run(capsys, "validate", *map(str, paths))
    assert code == OK  # warnings, not errors
    for path, name in zip(paths, HOSTILE, strict=True):
        section = out.split(f"OK: {path}: hostile")[1].split("OK: ")[0]
        assert f"warning: hostile component 'x' at {EXPRESSION_FIELD}" in section
        assert WARNINGS[name] in section, (name, section)
