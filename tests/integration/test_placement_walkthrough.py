"""docs/placement/plan.md's walkthrough, its commands run as written on the KWOK cluster.

The commands are read from the walkthrough's console block and run with ``kubectl`` and
``wlmap`` against the test cluster (its kubeconfig's current context), from the corpus
folder holding the Job's file; the Job's generated name replaces the one the doc shows.
The operator runs as a local process with the settings the walkthrough names. Each step's
output is checked for what the walkthrough says it shows: the rack planned before
submitting is the rack the controller chose, every pod was created gated (a watch replayed
from before the submission), the pods are bound there ungated and narrowed to it, and
planning the submitted Job by name gives the same rack.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.corpus import CORPUS
from tests.integration.fakenodes import RACK_LABEL, KwokCluster
from tests.integration.kube import Kube, wait_for
from tests.integration.kwokpods import placement
from tests.integration.operator_process import OperatorProcess
from tests.integration.placing import gated, start_operator

REPO = Path(__file__).resolve().parents[2]
DOC = REPO / "docs" / "placement" / "plan.md"
FOLDER = CORPUS / "core-gpu"
SHOWN_NAME = "sample-job-x7k2p"  # the Job name the doc shows; the real one is generated
NAMESPACE = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "default"}}
RACK = re.compile(r"\bb\d+-r\d+\b")
NODE = re.compile(r"\bgpu-b\d+-r\d+-h\d+\b")


def walkthrough_commands() -> list[str]:
    """The ``$`` lines of the console block in the walkthrough section."""
    text = DOC.read_text(encoding="utf-8")
    section = text[text.index("## Walkthrough") :]
    block = section[
        section.index("```console") : section.index("```", section.index("```console") + 3)
    ]
    return [line[2:] for line in block.splitlines() if line.startswith("$ ")]


def _run(command: str, kubeconfig: Path) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("WLMAP_")}
    bin_dir = str(Path(sys.executable).parent)
    env.update(KUBECONFIG=str(kubeconfig), NO_COLOR="1", PATH=f"{bin_dir}:{env['PATH']}")
    done = subprocess.run(
        ["bash", "-c", command],
        check=False,
        cwd=FOLDER,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, f"{command}\n{done.stdout}\n{done.stderr}"
    return done.stdout


@pytest.fixture
def placing_default(kwok_cluster: KwokCluster, tmp_path: Path) -> Iterator[OperatorProcess]:
    """The operator serving ``default`` with placement on; afterwards the Job is gone and
    the namespace's labels are as before."""
    kube = kwok_cluster.kube
    process = start_operator(kube, kwok_cluster.cluster.kubeconfig, "default", tmp_path)
    try:
        yield process
    finally:
        process.stop()
        for job in kube.list("batch/v1", "Job", "default"):
            if job["metadata"]["name"].startswith("sample-job-"):
                kube.delete({"apiVersion": "batch/v1", "kind": "Job", **job})
        labels = {"wlmap.dev/gang": None, "wlmap.dev/placement": None}
        kube.patch(NAMESPACE, {"metadata": {"labels": labels}})


def _pods_version(kube: Kube) -> str:
    listed = kube._ok(kube._send("GET", "/api/v1/namespaces/default/pods"))
    return str(listed["metadata"]["resourceVersion"])


def _created_since(kube: Kube, version: str, job: str) -> list[dict[str, Any]]:
    """The Job's pods as they were created: the ADDED events of a watch replayed from
    ``version`` (taken before the Job was submitted)."""
    params = {"watch": "1", "resourceVersion": version, "timeoutSeconds": "1"}
    answer = kube._send("GET", "/api/v1/namespaces/default/pods", params=params)
    events = [json.loads(line) for line in answer.text.splitlines() if line.strip()]
    return [
        e["object"]
        for e in events
        if e["type"] == "ADDED" and e["object"]["metadata"]["name"].startswith(f"{job}-")
    ]


def _placed(kube: Kube, name: str) -> str | None:
    job = kube.get("batch/v1", "Job", "default", name) or {}
    found = [
        c
        for c in (job.get("status") or {}).get("conditions") or ()
        if c["type"] == "WlmapPlacement" and c["reason"] == "Placed"
    ]
    return str(found[0]["message"]) if found else None


@pytest.mark.skipif(shutil.which("kubectl") is None, reason="kubectl is not installed")
@pytest.mark.skipif(not FOLDER.is_dir(), reason="the shared corpus is not present")
def test_the_placement_walkthrough(
    kwok_cluster: KwokCluster, placing_default: OperatorProcess
) -> None:
    kube, config = kwok_cluster.kube, kwok_cluster.cluster.kubeconfig
    label, plan_file, create, condition, events, pods, plan_named = walkthrough_commands()
    assert "namespace/default labeled" in _run(label, config)  # 1

    before = _run(plan_file, config)  # 2
    planned, nodes = RACK.findall(before), set(NODE.findall(before))
    assert planned and nodes, before
    rack = planned[0]

    since = _pods_version(kube)
    made = _run(create, config)  # 3
    name = re.fullmatch(r"job\.batch/(\S+) created\n", made)
    assert name is not None, made
    job = name[1]
    said = wait_for(lambda: _placed(kube, job), "the Job placed", timeout=90)
    created = _created_since(kube, since, job)  # as each pod was created: gated
    assert len(created) == 3 and all(gated(p) for p in created), created

    shown = _run(condition.replace(SHOWN_NAME, job), config)  # 4
    assert shown == said and f"{RACK_LABEL}={rack}" in shown, (shown, rack)
    assert "Placed" in _run(events.replace(SHOWN_NAME, job), config)

    def bound() -> list[list[str]]:  # 5
        rows = [line.split() for line in _run(pods.replace(SHOWN_NAME, job), config).splitlines()]
        body = rows[1:]
        return body if len(body) == 3 and all(r[1] != "<none>" for r in body) else []

    rows = wait_for(bound, "the Job's 3 pods bound")
    assert [(gates, narrowed) for _, _, gates, narrowed in rows] == [("<none>", rack)] * 3
    objects = [kube.get("v1", "Pod", "default", r[0]) or {} for r in rows]
    assert {labels[RACK_LABEL] for labels in placement(kwok_cluster, objects).values()} == {rack}
    assert {r[1] for r in rows} <= nodes  # on the nodes the plan named, too

    again = RACK.findall(_run(plan_named.replace(SHOWN_NAME, job), config))  # 6
    assert again and again[0] == rack
