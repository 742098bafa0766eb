"""``wlmap get --all-types -f DUMP`` on 10,000 workloads of mixed kinds.

Builds a ``kubectl get -o json``-style List from corpus manifests (varied names,
namespaces, uids and replica counts), then runs the CLI in a child process and reports
wall time, peak RSS and cost per workload, next to a baseline measured in the same run:
a child process that only parses the same dump. Targets: under 5 s and 500 MB.

Run: ``python benchmarks/cli_get_dump.py [--count N] [--format json|yaml]``
"""

from __future__ import annotations

import argparse
import copy
import json
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import yaml

CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "corpus"
SOURCES = [
    ("jobset/tpu-multislice-v6e-jax.yaml", "JobSet"),
    ("kubeflow-pytorchjob/simple.yaml", "PyTorchJob"),
    ("ray-raycluster/complete.yaml", "RayCluster"),
    ("lws-leaderworkerset/vllm-gpu.yaml", "LeaderWorkerSet"),
    ("kserve-inferenceservice/hf-storage-gpu.yaml", "InferenceService"),
    ("core-gpu/gpu-operator-tests-plugin-test-deployment.yaml", "Deployment"),
    ("core-workloads/kueue-tas-sample-job-required.yaml", "Job"),
]


def templates() -> list[dict[str, Any]]:
    found = []
    for relative, kind in SOURCES:
        for doc in yaml.safe_load_all((CORPUS / relative).read_text(encoding="utf-8")):
            if isinstance(doc, dict) and doc.get("kind") == kind:
                found.append(doc)
                break
    return found


def build(count: int, seed: int = 7) -> dict[str, Any]:
    rng = random.Random(seed)
    bases = templates()
    items = []
    for index in range(count):
        obj = copy.deepcopy(bases[index % len(bases)])
        metadata = obj.setdefault("metadata", {})
        metadata.pop("generateName", None)
        metadata["name"] = f"{obj['kind'].lower()}-{index}"
        metadata["namespace"] = f"team-{index % 25}"
        metadata["uid"] = f"00000000-0000-4000-8000-{index:012d}"
        metadata["creationTimestamp"] = "2026-11-01T00:00:00Z"
        spec = obj.get("spec") or {}
        if "replicas" in spec:
            spec["replicas"] = rng.randint(1, 8)
        items.append(obj)
    return {"apiVersion": "v1", "kind": "List", "items": items}


def run(command: list[str]) -> tuple[float, float]:
    """Wall seconds and peak RSS (MB) of a child process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    start = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    elapsed = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return elapsed, max(peak, before) / 1024


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--count", type=int, default=10_000)
    parser.add_argument("--format", choices=("json", "yaml"), default="json")
    args = parser.parse_args()
    dump = build(args.count)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"dump.{args.format}"
        text = json.dumps(dump) if args.format == "json" else yaml.safe_dump(dump)
        path.write_text(text, encoding="utf-8")
        parse_only = [
            sys.executable,
            "-c",
            f"import wlmap.sources as s; s.read_manifests([{str(path)!r}])",
        ]
        get = [sys.executable, "-m", "wlmap.cli", "get", "--all-types", "-f", str(path)]
        base_time, _ = run(parse_only)
        wall, peak = run(get)
    print(f"dump: {args.count} workloads, {len(text) / 1e6:.1f} MB {args.format}")
    print(f"parse only (baseline): {base_time:.2f} s")
    print(
        f"get --all-types:       {wall:.2f} s  ({wall / args.count * 1e6:.0f} us per workload), "
        f"peak RSS {peak:.0f} MB  (targets: < 2 s, < 500 MB)"
    )
    print(f"ratio get / parse: {wall / base_time:.2f}")


if __name__ == "__main__":
    main()
