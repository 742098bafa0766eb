"""A load of real workloads for the operator: created, scaled and deleted, with the time
the operator takes to converge after each step (shared by the test and the benchmark)."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from tests.integration.kube import Kube, load, wait_for
from wlmap.catalog import builtin_registry
from wlmap.schedulers import kai_podgroups
from wlmap.workload import interpret

KAI = ("scheduling.run.ai/v2alpha2", "PodGroup")
# One corpus manifest per kind; each is created under many names.
MANIFESTS = (
    "jobset/coordinator.yaml",
    "kubeflow-pytorchjob/simple.yaml",
    "ray-raycluster/sample.yaml",
    "lws-leaderworkerset/sample-v1.yaml",
    "core-workloads/kueue-tas-sample-job-required.yaml",
)


@dataclass
class LoadRun:
    """Seconds per phase: the API writes themselves, and the operator's convergence."""

    created: int = 0
    timings: dict[str, float] = field(default_factory=dict)


def templates() -> list[dict[str, Any]]:
    found = []
    for path in MANIFESTS:
        (obj,) = [o for o in load(path) if o.get("kind") not in ("Service", "ConfigMap")][:1]
        obj["metadata"].pop("namespace", None)
        obj["metadata"].pop("generateName", None)
        if "." not in obj["apiVersion"].partition("/")[0]:  # a built-in kind: opted in
            obj["metadata"].setdefault("labels", {})["wlmap.dev/gang"] = "true"
        found.append(obj)
    return found


def min_member(group: Mapping[str, Any]) -> int:
    """A PodGroup's minimum: its own, or its subgroups' together."""
    spec = group["spec"]
    if "minMember" in spec:
        return int(spec["minMember"])
    return sum(int(s.get("minMember", 0)) for s in spec.get("subGroups") or ())


def expected_minimum(obj: dict[str, Any]) -> int:
    """minMember as the operator should write it, from the catalog offline."""
    definition = builtin_registry().for_object(obj)
    (group,) = kai_podgroups(interpret(definition, obj), obj)
    return min_member(group)


def converged(kube: Kube, namespace: str, expected: dict[str, int]) -> Callable[[], bool]:
    """Exactly one group per workload, each with the expected minimum."""

    def check() -> bool:
        found: dict[str, list[int]] = {}
        for group in kube.list(*KAI, namespace):
            owner = group["metadata"]["ownerReferences"][0]["name"]
            found.setdefault(owner, []).append(min_member(group))
        return found == {name: [minimum] for name, minimum in expected.items()}

    return check


def run_load(kube: Kube, namespace: str, count: int, timeout: float = 600) -> LoadRun:
    """Create ``count`` workloads round-robin over the kinds, wait for convergence, scale
    every JobSet, wait, delete everything, wait; record the seconds of each step."""
    run = LoadRun()
    kinds = templates()
    created: list[dict[str, Any]] = []
    expected: dict[str, int] = {}
    start = time.monotonic()
    for index in range(count):
        obj = {**kinds[index % len(kinds)]}
        obj["metadata"] = {**obj["metadata"], "name": f"load-{index}"}
        created.append(kube.create(obj, namespace))
        expected[f"load-{index}"] = expected_minimum(created[-1])
    run.created = len(created)
    run.timings["create"] = time.monotonic() - start
    wait_for(converged(kube, namespace, expected), f"{count} groups", timeout, interval=1)
    run.timings["converge-created"] = time.monotonic() - start

    start = time.monotonic()
    for obj in created:
        if obj["kind"] == "JobSet":
            replicated = obj["spec"]["replicatedJobs"]
            replicated[0]["replicas"] = 2
            scaled = kube.patch(obj, {"spec": {"replicatedJobs": replicated}})
            expected[obj["metadata"]["name"]] = expected_minimum(scaled)
    run.timings["scale"] = time.monotonic() - start
    wait_for(converged(kube, namespace, expected), "scaled groups", timeout, interval=1)
    run.timings["converge-scaled"] = time.monotonic() - start

    start = time.monotonic()
    for obj in created:
        kube.delete(obj)
    run.timings["delete"] = time.monotonic() - start
    wait_for(converged(kube, namespace, {}), "no groups left", timeout, interval=1)
    run.timings["converge-deleted"] = time.monotonic() - start
    return run
