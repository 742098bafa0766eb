"""The command table that lets ``wlmap --help`` list commands without importing them."""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path

import click
import pytest

from tests.corpus import corpus_path
from tests.unit.cli.runner import run
from wlmap.cli._exits import NO_DEFINITION
from wlmap.cli.commands import COMMANDS


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_table_matches_each_command(name: str) -> None:
    declared = COMMANDS[name]
    command = getattr(importlib.import_module(declared.module), declared.attribute)
    assert isinstance(command, click.Command)
    assert command.name == name
    assert command.get_short_help_str(limit=200) == declared.short_help


def test_help_lists_every_command_with_its_short_help(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "--help")
    assert code == 0
    listed = out.split("Commands:")[1]
    for name in COMMANDS:
        assert f"  {name} " in listed
    assert "Show the structure of workloads (files or cluster)." in listed


def test_a_command_runs_and_an_unknown_one_is_a_usage_error(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert run(capsys, "definitions", "list", "-o", "json")[0] == 0
    code, _, err = run(capsys, "nosuch")
    assert code == 2
    assert "No such command 'nosuch'" in err


def test_the_installed_entry_point_flushes_its_output_and_keeps_the_exit_code(
    tmp_path: Path,
) -> None:
    mystery = tmp_path / "mystery.yaml"
    mystery.write_text("apiVersion: x.io/v1\nkind: Mystery\nmetadata: {name: m}\n")
    jobset = corpus_path("jobset/coordinator.yaml")
    both = subprocess.run(
        [sys.executable, "-m", "wlmap.cli", "describe", "-f", str(jobset), "-f", str(mystery)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert both.returncode == 0
    assert both.stdout.startswith("JobSet/coordinator-example  ")
    assert both.stdout.endswith(
        "Gang jobset: at least 5 pods of pod; subgroups replicatedJob >= 5\n"
    )
    assert both.stderr == f"warning: {mystery}: no definition covers Mystery (x.io/v1)\n"
    alone = subprocess.run(
        [sys.executable, "-m", "wlmap.cli", "describe", "-f", str(mystery)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert (alone.returncode, alone.stdout) == (NO_DEFINITION, "")
