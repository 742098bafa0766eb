"""Argo CD's health-script runner, built by scripts/build-argocd-lua.sh: runs exported
scripts on objects in batches, one process per batch, as Argo CD's controller runs them."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from tests.integration.testcluster import REPO
from wlmap.export import HealthScript

ARGOCD_LUA_SCRIPT = REPO / "scripts" / "build-argocd-lua.sh"
WHAT = "the Argo CD health-script runner"


DEADLINE = "context deadline exceeded"


def run_health(
    binaries: Path, runs: Iterable[tuple[HealthScript, Mapping[str, Any]]]
) -> list[dict[str, str]]:
    """Argo CD's answer for each (script, object): ``status`` and ``message``, or
    ``error`` when the script raised or returned something Argo CD rejects.

    A run that passed Argo CD's one-second deadline is run once more: on a machine shared
    by parallel test runs a process can lose the processor for that long.
    """
    runs = list(runs)
    answers = _batch(binaries, runs)
    late = [i for i, answer in enumerate(answers) if DEADLINE in answer.get("error", "")]
    if late:
        for i, answer in zip(late, _batch(binaries, [runs[i] for i in late]), strict=True):
            answers[i] = answer
    return answers


def _batch(
    binaries: Path, runs: list[tuple[HealthScript, Mapping[str, Any]]]
) -> list[dict[str, str]]:
    sent: set[str] = set()
    lines = []
    for script, obj in runs:
        request: dict[str, Any] = {"name": script.key, "obj": obj}
        if script.key not in sent:
            sent.add(script.key)
            request |= {"script": script.script, "useOpenLibs": script.use_open_libs}
        lines.append(json.dumps(request))
    done = subprocess.run(
        [str(binaries / "argocd-lua")],
        input="\n".join(lines) + "\n",
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
    )
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert len(answers) == len(lines), done.stderr
    return answers
