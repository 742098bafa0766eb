"""Full interpretation of real workloads against hand-written adapters doing the same extraction.

Prints, for JobSet, PyTorchJob and RayCluster manifests from the shared corpus:
the definition-driven rate (workloads/s on one core), the hand-written adapters' rate,
and their ratio. Both sides compute components, replicas, pod templates, per-pod
resources, pod and GPU totals, generic status and the gang minimum; both use the same
resource arithmetic (``pod_resources``), so the ratio measures the cost of the map itself.

Run: ``python benchmarks/interpret.py [--seconds S]``
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable, Mapping
from fractions import Fraction
from pathlib import Path
from typing import Any

import yaml

from wlmap.catalog import builtin_registry
from wlmap.workload import interpret, prepare
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


def _conditions(obj: Mapping[str, Any]) -> dict[str, str]:
    return {
        c.get("type"): c.get("status") for c in (obj.get("status") or {}).get("conditions") or ()
    }


def _resources(
    template: Mapping[str, Any] | None, pods: int
) -> tuple[PodResources | None, Fraction]:
    if not template:
        return None, Fraction(0)
    per_pod = pod_resources(template.get("spec") or {}, template.get("metadata") or {})
    return per_pod, per_pod.total_gpus * pods


def adapt_jobset(obj: Mapping[str, Any]) -> dict[str, Any]:
    components, total_pods, total_gpus = [], 0, Fraction(0)
    for job in obj["spec"].get("replicatedJobs") or ():
        job_spec = job.get("template", {}).get("spec", {})
        pods = (job.get("replicas") or 1) * (job_spec.get("parallelism") or 1)
        per_pod, gpus = _resources(job_spec.get("template"), pods)
        components.append({"name": job["name"], "pods": pods, "perPod": per_pod, "gpus": gpus})
        total_pods, total_gpus = total_pods + pods, total_gpus + gpus
    conditions = _conditions(obj)
    if conditions.get("Completed") == "True":
        phase = "Completed"
    elif conditions.get("Failed") == "True":
        phase = "Failed"
    elif conditions.get("Suspended") == "True":
        phase = "Suspended"
    else:
        phase = "Running" if obj.get("status") else "Undefined"
    return {
        "components": components,
        "pods": total_pods,
        "gpus": total_gpus,
        "phase": phase,
        "gangMin": total_pods,
    }


def adapt_pytorchjob(obj: Mapping[str, Any]) -> dict[str, Any]:
    components, total_pods, total_gpus, gang = [], 0, Fraction(0), 0
    elastic = obj["spec"].get("elasticPolicy") or {}
    for role, spec in (obj["spec"].get("pytorchReplicaSpecs") or {}).items():
        replicas = spec.get("replicas") or 1
        minimum = elastic.get("minReplicas", replicas) if role == "Worker" else replicas
        per_pod, gpus = _resources(spec.get("template"), replicas)
        components.append({"name": role.lower(), "pods": replicas, "perPod": per_pod, "gpus": gpus})
        total_pods, total_gpus, gang = total_pods + replicas, total_gpus + gpus, gang + minimum
    conditions = _conditions(obj)
    phase = "Undefined"
    for kind, generic in (
        ("Succeeded", "Completed"),
        ("Failed", "Failed"),
        ("Running", "Running"),
        ("Restarting", "Degraded"),
        ("Created", "Initializing"),
    ):
        if conditions.get(kind) == "True":
            phase = generic
            break
    return {
        "components": components,
        "pods": total_pods,
        "gpus": total_gpus,
        "phase": phase,
        "gangMin": gang,
    }


def adapt_raycluster(obj: Mapping[str, Any]) -> dict[str, Any]:
    spec = obj["spec"]
    per_pod, gpus = _resources(spec.get("headGroupSpec", {}).get("template"), 1)
    components = [{"name": "head", "pods": 1, "perPod": per_pod, "gpus": gpus}]
    total_pods, total_gpus, gang = 1, gpus, 1
    for group in spec.get("workerGroupSpecs") or ():
        minimum = group.get("minReplicas") or 0
        replicas = group.get("replicas")
        replicas = minimum if replicas is None else replicas
        pods = replicas * (group.get("numOfHosts") or 1)
        per_pod, gpus = _resources(group.get("template"), pods)
        components.append(
            {"name": group.get("groupName"), "pods": pods, "perPod": per_pod, "gpus": gpus}
        )
        total_pods, total_gpus, gang = total_pods + pods, total_gpus + gpus, gang + minimum
    conditions = _conditions(obj)
    state = (obj.get("status") or {}).get("state")
    if spec.get("suspend"):
        phase = "Suspended"
    elif (
        conditions.get("HeadPodReady") == "True"
        and conditions.get("RayClusterProvisioned") == "True"
    ) or state == "ready":
        phase = "Running"
    else:
        phase = "Initializing" if obj.get("status") else "Undefined"
    return {
        "components": components,
        "pods": total_pods,
        "gpus": total_gpus,
        "phase": phase,
        "gangMin": gang,
    }


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


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=3.0, help="time per measurement")
    args = parser.parse_args()
    registry = builtin_registry()
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

        def run_map(pairs: list[Any] = pairs) -> None:
            for definition, obj in pairs:
                interpret(definition, obj)

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
        f"time ratio map/adapters over all objects: {overall_map / overall_base:.2f} (target <= 3)"
    )


if __name__ == "__main__":
    main()
