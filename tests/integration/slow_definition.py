"""The slow-definition scenario: a WorkloadMap whose worker replicas path is killed at the
evaluation's time limit every time, applied to LeaderWorkerSets in one namespace, while
JobSets (the built-in definition) are created in another; how long each JobSet waits for
its gang. Shared by the integration test and the benchmark."""

from __future__ import annotations

import copy
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from tests.integration.kube import Kube, load
from tests.integration.load import KAI

REPO = Path(__file__).resolve().parents[2]
CATALOG = REPO / "src" / "wlmap" / "catalog" / "definitions"
WORKLOADMAP = ("wlmap.dev/v1alpha1", "WorkloadMap")
DEFINITION_CRDS = tuple(
    REPO / "deploy" / "crds" / name
    for name in ("wlmap.dev_workloadmaps.yaml", "run.ai_kartas.yaml")
)
# Statically safe (a warning: n^9 steps), outside the native subset (it defines a function),
# so every evaluation runs on libjq until the worker is killed at the 2-second limit.
SLOW_REPLICAS = (
    "def one: 1; ["
    + " | ".join(f".metadata.labels[] as ${name}" for name in "abcdefghi")
    + " | one] | length"
)


def slow_lws_definition(name: str) -> dict[str, Any]:
    """The catalog's LeaderWorkerSet definition as a cluster object, its worker replicas
    path replaced by the slow expression."""
    document: dict[str, Any] = yaml.safe_load(
        (CATALOG / "leaderworkerset-x-k8s-io-leaderworkerset-v1.yaml").read_text()
    )
    document["metadata"] = {"name": name}
    worker = document["spec"]["structureDefinition"]["childComponents"][2]
    assert worker["name"] == "worker"
    worker["scaleDefinition"]["replicasPath"] = SLOW_REPLICAS
    return document


def leaderworkersets(kube: Kube, namespace: str, count: int) -> list[dict[str, Any]]:
    """``count`` copies of the upstream sample LeaderWorkerSet."""
    (template,) = load("lws-leaderworkerset/sample-v1.yaml")
    made = []
    for index in range(count):
        obj = copy.deepcopy(template)
        obj["metadata"]["name"] = f"lws-{index}"
        made.append(kube.create(obj, namespace))
    return made


def has_group(kube: Kube, namespace: str, obj: dict[str, Any]) -> bool:
    """Whether a gang object owned by ``obj`` exists."""
    uid = obj["metadata"]["uid"]
    return any(
        any(o.get("uid") == uid for o in g["metadata"].get("ownerReferences") or [])
        for g in kube.list(*KAI, namespace)
    )


@dataclass
class Latencies:
    """Seconds from a JobSet's creation to its gang object, in creation order."""

    seconds: list[float] = field(default_factory=list)

    def median(self) -> float:
        ordered = sorted(self.seconds)
        return ordered[len(ordered) // 2]

    def worst(self) -> float:
        return max(self.seconds)


def jobset_latencies(
    kube: Kube, namespace: str, prefix: str, duration: float, every: float = 1.0
) -> Latencies:
    """Create a JobSet every ``every`` seconds for ``duration`` seconds, each once the
    previous one has its gang, and time each from creation to gang."""
    (template,) = load("jobset/coordinator.yaml")
    out = Latencies()
    began = time.monotonic()
    index = 0
    while time.monotonic() - began < duration:
        obj = copy.deepcopy(template)
        obj["metadata"]["name"] = f"{prefix}-{index}"
        index += 1
        started = time.monotonic()
        created = kube.create(obj, namespace)
        deadline = started + 120
        while not has_group(kube, namespace, created):
            if time.monotonic() > deadline:
                raise AssertionError(f"no gang for JobSet {obj['metadata']['name']} in 120 s")
            time.sleep(0.02)
        out.seconds.append(time.monotonic() - started)
        time.sleep(max(0.0, started + every - time.monotonic()))
    return out


def degraded(kube: Kube, name: str) -> dict[str, Any]:
    """The ``Degraded`` condition of a WorkloadMap (empty when it has none)."""
    obj = kube.get(*WORKLOADMAP, None, name) or {}
    found = [c for c in (obj.get("status") or {}).get("conditions", []) if c["type"] == "Degraded"]
    return found[0] if found else {}
