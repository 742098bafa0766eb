"""Messages every command gives alike: warnings on stderr, empty and malformed input, kinds
no definition covers, names with control characters, kubectl's AGE, and a PODS column
that does not change with what else the input holds."""

from __future__ import annotations

import copy
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.corpus import corpus_object
from tests.unit.cli.runner import run
from wlmap.cli._exits import CLUSTER, ERROR, INVALID_DEFINITION, NO_DEFINITION, OK, UNREADABLE_INPUT
from wlmap.views.listing import age, human_duration

READERS = [
    ("describe", "-f"),
    ("get", "--all-types", "-f"),
    ("explain", "-f"),
    ("podgroups", "--target", "kai", "-f"),
]


def write(tmp_path: Path, *objects: dict[str, Any]) -> str:
    path = tmp_path / "input.yaml"
    path.write_text(yaml.safe_dump_all(objects), encoding="utf-8")
    return str(path)


def jobset(name: str = "js", replicas: Any = 1) -> dict[str, Any]:
    obj = copy.deepcopy(corpus_object("jobset/coordinator.yaml", "JobSet"))
    obj["metadata"] = {"name": name, "namespace": "team", "uid": f"uid-{name}"}
    obj["spec"]["replicatedJobs"][0]["replicas"] = replicas
    return obj


@pytest.mark.parametrize("command", READERS, ids=lambda c: c[0])
def test_malformed_yaml_is_reported_once(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, command: tuple[str, ...]
) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text("apiVersion: v1\nkind: Foo\nmetadata: {name: [}\n", encoding="utf-8")
    code, out, err = run(capsys, *command, str(path))
    assert code == UNREADABLE_INPUT
    assert err.count("malformed YAML") == 1, err
    assert err.startswith(f"error: {path}:3:")
    assert out == ""


@pytest.mark.parametrize("command", READERS, ids=lambda c: c[0])
def test_empty_input_says_so(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, command: tuple[str, ...]
) -> None:
    path = tmp_path / "empty.yaml"
    path.write_text("# nothing here\n", encoding="utf-8")
    code, out, err = run(capsys, *command, str(path))
    assert code == OK
    assert f"warning: no objects in {path}\n" in err
    assert out.strip() in ("", '{\n  "items": [],\n  "count": 0\n}')


@pytest.mark.parametrize(
    "command",
    [*READERS, ("patch", "--suspend", "-f")],
    ids=lambda c: c[0],
)
def test_an_unknown_kind_has_one_exit_code_everywhere(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, command: tuple[str, ...]
) -> None:
    source = write(
        tmp_path, {"apiVersion": "x.io/v1", "kind": "Mystery", "metadata": {"name": "m"}}
    )
    code, _, err = run(capsys, *command, source)
    assert code == NO_DEFINITION
    assert f"warning: {source}: no definition covers Mystery (x.io/v1)" in err


def test_get_of_an_unknown_type_has_the_same_code(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, _, err = run(capsys, "get", "mystery", "-f", write(tmp_path, jobset()))
    assert code == NO_DEFINITION
    assert "no definition covers the type 'mystery'" in err


@pytest.mark.parametrize("command", [("describe", "-f"), ("get", "jobset", "-f")])
def test_what_a_workload_could_not_read_is_a_warning_on_stderr(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, command: tuple[str, ...]
) -> None:
    code, out, err = run(capsys, *command, write(tmp_path, jobset(replicas="lots")))
    assert code == OK
    assert "warning" not in out
    assert "warning: JobSet/js: jobset-x-k8s-io-jobset-v1alpha2: component 'replicatedJob'" in err
    assert "'lots'" in err


def test_control_characters_in_names_are_escaped(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    source = write(tmp_path, jobset(name="evil\x1b[2J\nrow"))
    for command in (("describe", "-f"), ("get", "jobset", "-f")):
        code, out, _ = run(capsys, *command, source)
        assert code == OK
        assert "\x1b" not in out
        assert "evil\\x1b[2J\\nrow" in out
    mystery = {"apiVersion": "x.io/v1", "kind": "Mys\x07tery", "metadata": {"name": "m"}}
    _, _, err = run(capsys, "describe", "-f", write(tmp_path, mystery))
    assert "\x07" not in err
    assert "Mys\\x07tery" in err


@pytest.mark.parametrize(
    ("seconds", "shown"),
    [
        (-5, "<invalid>"),
        (-1, "0s"),
        (45, "45s"),
        (119, "119s"),
        (150, "2m30s"),
        (300, "5m"),
        (599, "9m59s"),
        (600, "10m"),
        (3 * 3600 - 1, "179m"),
        (3 * 3600 + 600, "3h10m"),
        (5 * 3600, "5h"),
        (8 * 3600 + 1800, "8h"),
        (47 * 3600, "47h"),
        (2 * 86400 + 4 * 3600, "2d4h"),
        (3 * 86400, "3d"),
        (8 * 86400, "8d"),
        (400 * 86400, "400d"),
        (2 * 365 * 86400 + 30 * 86400, "2y30d"),
        (9 * 365 * 86400, "9y"),
    ],
)
def test_age_is_printed_as_kubectl_prints_it(seconds: int, shown: str) -> None:
    assert human_duration(seconds) == shown
    now = datetime(2026, 12, 3, tzinfo=UTC)
    created = (now - timedelta(seconds=seconds)).strftime("%Y-%m-%dT%H:%M:%SZ")
    assert age(created, now) == shown


def test_pods_column_does_not_change_with_the_rest_of_the_input(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    alone = write(tmp_path, jobset("quiet"))
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": "busy-pod",
            "namespace": "team",
            "uid": "uid-pod",
            "ownerReferences": [
                {
                    "apiVersion": "jobset.x-k8s.io/v1alpha2",
                    "kind": "JobSet",
                    "name": "busy",
                    "uid": "uid-busy",
                    "controller": True,
                }
            ],
        },
        "status": {"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}]},
    }
    beside = str(tmp_path / "beside.yaml")
    Path(beside).write_text(yaml.safe_dump_all([jobset("quiet"), jobset("busy"), pod]))
    _, out_alone, _ = run(capsys, "get", "jobset", "-f", alone)
    _, out_beside, _ = run(capsys, "get", "jobset", "-f", beside)
    quiet_alone = next(line for line in out_alone.splitlines() if " quiet " in line)
    quiet_beside = next(line for line in out_beside.splitlines() if " quiet " in line)
    assert quiet_alone.split()[3] == quiet_beside.split()[3] == "5"
    busy = next(line for line in out_beside.splitlines() if " busy " in line)
    assert busy.split()[3].endswith("/5")  # its own pod is in the input: ready/desired


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("apiVersion: v1\nclusters: [\n", "the kubeconfig is malformed YAML (line 3, column 1)"),
        ("- a\n- b\n", "cannot use the kubeconfig"),
    ],
)
def test_a_malformed_kubeconfig_is_a_cluster_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, text: str, message: str
) -> None:
    kubeconfig = tmp_path / "config"
    kubeconfig.write_text(text, encoding="utf-8")
    code, out, err = run(capsys, "--kubeconfig", str(kubeconfig), "get", "jobset")
    assert code == CLUSTER
    assert err.startswith(f"error: {message}")
    assert "unexpected" not in err
    assert out == ""


def test_a_message_of_several_lines_keeps_its_lines(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    definition = tmp_path / "broken.yaml"
    definition.write_text(
        "apiVersion: wlmap.dev/v1alpha1\nkind: WorkloadMap\nmetadata: {name: broken}\n"
        "spec:\n  structureDefinition:\n    rootComponent:\n      name: r\n"
        "      kind: {group: example.com, version: v1, kind: Broken}\n",
        encoding="utf-8",
    )
    code, _, err = run(capsys, "--definitions", str(definition), "describe", "-f", str(definition))
    assert code == INVALID_DEFINITION
    lines = err.splitlines()
    assert lines[0].startswith("error: ") and lines[0].endswith("problem(s) in definition:")
    assert lines[1].startswith("  - broken ")
    assert "\\n" not in err


def test_a_command_whose_optional_dependency_is_missing_names_the_extra() -> None:
    """As after `pip install wlmap` without extras: numpy cannot be imported."""
    blocked = "import sys; sys.modules['numpy'] = None; from wlmap.cli import run; run()"
    done = subprocess.run(
        [sys.executable, "-c", blocked, "simulate", "gangs", "--topology", "n256g8"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == ERROR
    assert done.stderr == (
        "error: this command needs numpy, one of wlmap's optional dependencies: "
        "pip install 'wlmap[placement]'\n"
    )
