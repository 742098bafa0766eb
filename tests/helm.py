"""The chart's tests' helm: built once by scripts/fetch-helm.sh from the Go module proxy
(skipped, with the reason, only where the go command is missing), and the objects
``helm template`` renders for a set of values."""

from __future__ import annotations

import functools
import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

REPO = Path(__file__).resolve().parents[1]
CHART = REPO / "deploy" / "helm" / "wlmap"
SCRIPT = REPO / "scripts" / "fetch-helm.sh"
MISSING_GO = 3  # the script's exit status when it needs the go command
RELEASE = "wlmap"

Key = tuple[str, str, str]  # kind, namespace ("None" when cluster-scoped), name


@functools.cache
def _built() -> Path | str:
    run = subprocess.run(["bash", str(SCRIPT)], check=False, capture_output=True, text=True)
    if run.returncode == MISSING_GO:
        return "the chart's tests need Go to build helm once (scripts/fetch-helm.sh)"
    if run.returncode != 0:
        raise RuntimeError(f"fetch-helm.sh failed ({run.returncode}):\n{run.stderr[-3000:]}")
    return Path(run.stdout.strip().splitlines()[-1]) / "helm"


def helm() -> Path:
    """The helm binary, built on first use; skips the test when Go is missing."""
    found = _built()
    if isinstance(found, str):
        pytest.skip(found)
    return found


def run(*arguments: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    """``helm ARGUMENTS``; with ``check``, a failure is an assertion showing what helm said."""
    done = subprocess.run([str(helm()), *arguments], capture_output=True, text=True, check=False)
    assert not check or done.returncode == 0, f"helm {' '.join(arguments)}:\n{done.stderr}"
    return done


def values_file(values: dict[str, Any], folder: Path) -> Path:
    path = folder / "values.json"
    path.write_text(json.dumps(values), encoding="utf-8")
    return path


def key(obj: dict[str, Any]) -> Key:
    meta = obj["metadata"]
    return (obj["kind"], str(meta.get("namespace")), meta["name"])


def template(values: dict[str, Any], folder: Path, namespace: str) -> dict[Key, Any]:
    """The objects ``helm template --include-crds`` renders for ``values``, by key."""
    rendered = run(
        "template", RELEASE, str(CHART), "--namespace", namespace, "--include-crds",
        "-f", str(values_file(values, folder)),
    )  # fmt: skip
    return {key(o): o for o in yaml.safe_load_all(rendered.stdout) if o}


def refusal(values: dict[str, Any], folder: Path, chart: Path = CHART) -> str:
    """What ``helm template`` says when it refuses ``values`` (for ``chart``)."""
    rendered = run(
        "template", RELEASE, str(chart), "-f", str(values_file(values, folder)), check=False
    )
    assert rendered.returncode != 0, rendered.stdout[:2000]
    return rendered.stderr
