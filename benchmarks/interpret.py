"""Full interpretation of real workloads against hand-written adapters doing the same extraction.

Prints, for JobSet, PyTorchJob and RayCluster manifests from the shared corpus:
the definition-driven rate (workloads/s on one core), the hand-written adapters' rate,
and their ratio. Both sides compute components, replicas, pod templates, per-pod
resources, pod and GPU totals, generic status and the gang minimum; both use the same
resource arithmetic (``pod_resources``), so the ratio measures the cost of the map itself.

With ``--general``, the map side skips the path generated per definition for the ordinary
case (no pods, claims or references given) and runs the general interpreter only: the
cost the generated path saves.

Run: ``python benchmarks/interpret.py [--seconds S] [--general]``
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import yaml

from wlmap.app import definitions_in_use
from wlmap.workload import interpret, prepare
from wlmap.workload.interpret import general_view
from wlmap.workload.resources import PodResources, pod_resources

CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "corpus"
FOLDERS = {"JobSet": "jobset", "PyTorchJob": "kubeflow-pytorchjob", "RayCluster": "ray-raycluster"}


def load(kind: str) -> list[dict[str, Any]]:
    objs = []
    for path in sorted((CORPUS / FOLDERS[kind]).glob("*.yaml")):
        for doc in yaml.safe_load_all(path.read_text(encoding="utf-8")):
            if (
                isinstance(doc, dict)
                and doc.get("kind") == kind
                and isinstance(doc.get("spec"), dict)
            ):
                objs.append(doc)
    return objs


def _true(obj: Mapping[str, Any]) -> set[str]:
    """Condition types whose status is True."""
    return {
        c.get("type")
        for c in (obj.get("status") or {}).get("conditions") or ()
        if c.get("status") == "True"
    }


def _component(name: str, template: Mapping[str, Any] | None, pods: int) -> dict[str, Any]:
    per_pod = total = None
    if template:
        per_pod = pod_resources(template.get("spec") or {}, template.get("metadata") or {})
        total = per_pod.scaled(pods)
    return {"name": name, "pods": pods if template else 0, "perPod": per_pod, "total": total}


def _summary(components: list[dict[str, Any]], phases: list[str], gang: int) -> dict[str, Any]:
    totals = PodResources()
    for component in components:
        if component["total"] is not None:
            totals = totals.add(component["total"])
    return {
        "components": components,
        "pods": sum(c["pods"] for c in components),
        "gpus": totals.total_gpus,
        "totals": totals,
        "phases": phases or ["Undefined"],
        "gangMin": gang,
    }


def adapt_jobset(obj: Mapping[str, Any]) -> dict[str, Any]:
    spec, status = obj["spec"], obj.get("status")
    components = []
    for job in spec.get("replicatedJobs") or ():
        job_spec = job.get("template", {}).get("spec", {})
        replicas = job.get("replicas", 1)
        components.append({"name": job["name"], "pods": 0, "perPod": None, "total": None})
        pods = replicas * job_spec.get("parallelism", 1)
        components.append(_component(job["name"], job_spec.get("template"), pods))
    true = _true(obj)
    suspend = spec.get("suspend") is True
    finished = bool(true & {"Completed", "Failed"})
    jobs_status = (status or {}).get("replicatedJobsStatus") or []
    done = sum((j.get("ready") or 0) + (j.get("succeeded") or 0) for j in jobs_status)
    wanted = sum(j.get("replicas", 1) for j in spec.get("replicatedJobs") or ())
    phases = []
    if not suspend and "Suspended" in true and not finished:
        phases.append("Resuming")
    if suspend and not true & {"Completed", "Failed", "Suspended"}:
        phases.append("Suspending")
    if suspend and "Suspended" in true and not finished:
        phases.append("Suspended")
    if (
        not suspend
        and not true & {"Completed", "Failed", "Suspended", "StartupPolicyInProgress"}
        and jobs_status
        and done >= wanted
    ):
        phases.append("Running")
    if "Failed" in true:
        phases.append("Failed")
    if "Completed" in true:
        phases.append("Completed")
    if (
        status is not None
        and not suspend
        and not true & {"Completed", "Failed", "Suspended"}
        and ("StartupPolicyInProgress" in true or done < wanted)
    ):
        phases.append("Initializing")
    if not finished and (
        "RestartingJobSet" in true or any((j.get("failed") or 0) > 0 for j in jobs_status)
    ):
        phases.append("Degraded")
    return _summary(components, phases, sum(c["pods"] for c in components))


def adapt_pytorchjob(obj: Mapping[str, Any]) -> dict[str, Any]:
    spec = obj["spec"]
    components, gang = [], 0
    elastic = spec.get("elasticPolicy") or {}
    for role, replica_spec in (spec.get("pytorchReplicaSpecs") or {}).items():
        replicas = replica_spec.get("replicas", 1)
        components.append(_component(role.lower(), replica_spec.get("template"), replicas))
        gang += elastic.get("minReplicas", replicas) if role == "Worker" else replicas
    true = _true(obj)
    suspend = (spec.get("runPolicy") or {}).get("suspend") is True
    ended = true & {"Succeeded", "Failed", "Suspended"}
    phases = []
    if not suspend and "Suspended" in true:
        phases.append("Resuming")
    if suspend and not true & {"Suspended", "Succeeded", "Failed"}:
        phases.append("Suspending")
    if suspend and "Suspended" in true:
        phases.append("Suspended")
    if not suspend and "Running" in true and not ended:
        phases.append("Running")
    if "Failed" in true:
        phases.append("Failed")
    if "Succeeded" in true:
        phases.append("Completed")
    if (
        not suspend
        and "Created" in true
        and not true & {"Running", "Restarting", "Succeeded", "Failed", "Suspended"}
    ):
        phases.append("Initializing")
    if "Restarting" in true and not ended:
        phases.append("Degraded")
    return _summary(components, phases, gang)


def adapt_raycluster(obj: Mapping[str, Any]) -> dict[str, Any]:
    spec, status = obj["spec"], obj.get("status")
    components = [_component("head", spec.get("headGroupSpec", {}).get("template"), 1)]
    gang = 1
    for group in spec.get("workerGroupSpecs") or ():
        minimum = group.get("minReplicas") or 0
        replicas = group.get("replicas")
        replicas = minimum if replicas is None else replicas
        hosts = group.get("numOfHosts") or 1
        components.append(
            _component(group.get("groupName"), group.get("template"), replicas * hosts)
        )
        gang += minimum * hosts
    true = _true(obj)
    conditions = (status or {}).get("conditions") or []
    state = (status or {}).get("state")
    suspend = spec.get("suspend") is True
    pausing = bool(true & {"RayClusterSuspending", "RayClusterSuspended"})
    phases = []
    if suspend and ("RayClusterSuspended" in true or (not conditions and state == "suspended")):
        phases.append("Suspended")
    ready = ({"RayClusterProvisioned", "HeadPodReady"} <= true) if conditions else state == "ready"
    if not suspend and not pausing and ready:
        phases.append("Running")
    if state == "failed":
        phases.append("Failed")
    if (
        status is not None
        and not suspend
        and not true & {"RayClusterProvisioned", "RayClusterSuspending", "RayClusterSuspended"}
        and (conditions or state not in ("ready", "suspended", "failed"))
    ):
        phases.append("Initializing")
    if (
        not suspend
        and not pausing
        and (
            ("RayClusterProvisioned" in true and "HeadPodReady" not in true)
            or "ReplicaFailure" in true
        )
    ):
        phases.append("Degraded")
    return _summary(components, phases, gang)


ADAPTERS: dict[str, Callable[[Mapping[str, Any]], dict[str, Any]]] = {
    "JobSet": adapt_jobset,
    "PyTorchJob": adapt_pytorchjob,
    "RayCluster": adapt_raycluster,
}


def rate(action: Callable[[], object], count: int, seconds: float) -> float:
    """Workloads per second: best of several timed rounds (robust to a noisy machine)."""
    best = float("inf")
    deadline = time.perf_counter() + seconds
    while True:
        start = time.perf_counter()
        action()
        best = min(best, time.perf_counter() - start)
        if time.perf_counter() > deadline:
            break
    return count / best


def _general(definition: Any, obj: Mapping[str, Any]) -> Any:
    return general_view(definition, obj, None, None, None, None, False)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=3.0, help="time per measurement")
    parser.add_argument(
        "--general", action="store_true", help="the general interpreter only (no generated path)"
    )
    args = parser.parse_args()
    view_of = _general if args.general else interpret
    registry = definitions_in_use()
    print(f"{'kind':<12} {'objects':>7} {'map wl/s':>10} {'adapter wl/s':>13} {'ratio':>6}")
    overall_map = overall_base = 0.0
    for kind, adapter in ADAPTERS.items():
        objs = load(kind)
        compiled = [prepare(registry.for_object(o)) for o in objs]
        pairs = list(zip(compiled, objs, strict=True))
        for definition, obj in pairs:  # both sides must agree on what they compute
            view = interpret(definition, obj, strict=True)
            expected = adapter(obj)
            assert view.total_pods == expected["pods"], (kind, obj["metadata"]["name"])
            assert view.totals.total_gpus == expected["gpus"], (kind, obj["metadata"]["name"])
            assert view.totals.requests == expected["totals"].requests, obj["metadata"]["name"]
            assert list(view.phases) == expected["phases"], (kind, obj["metadata"]["name"])

        def run_map(pairs: list[Any] = pairs) -> None:
            for definition, obj in pairs:
                # gang groups are worked out on first read: read them, as the adapters
                # compute their gang minimum
                _ = view_of(definition, obj).gang_groups

        def run_adapter(objs: list[dict[str, Any]] = objs, adapter: Any = adapter) -> None:
            for obj in objs:
                adapter(obj)

        mapped = rate(run_map, len(objs), args.seconds)
        baseline = rate(run_adapter, len(objs), args.seconds)
        overall_map += len(objs) / mapped
        overall_base += len(objs) / baseline
        print(
            f"{kind:<12} {len(objs):>7} {mapped:>10.0f} {baseline:>13.0f} {baseline / mapped:>6.2f}"
        )
    print(
        f"time ratio map/adapters over all objects: {overall_map / overall_base:.2f} (target <= 1.5)"
    )


if __name__ == "__main__":
    main()
