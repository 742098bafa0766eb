"""The metrics index at cluster scale: 10,000 workloads and 100,000 pods.

Workloads are the catalog's examples and, when the corpus is beside the checkout, real
upstream manifests of other kinds, copied with varied names, namespaces and uids; each has
ten pods made from its first pod template, bound round-robin to 8-GPU nodes (one node per
eight pods) and started. They are interpreted as the watches interpret them and fed to the
same :class:`wlmap.metrics.MetricsIndex` the exporter serves.

Printed, each against a baseline measured in the same run (the same index at a tenth of
the size): CPU seconds of one scrape after an update (target <= 1 s), resident memory the
index and its views add (target <= 300 MB), the CPU cost of updating one workload (the
ratio at 10x the workloads should stay near 1: proportional to the workload, not the
cluster), and the series per workload of each kind.

Run: ``python benchmarks/metrics_scrape.py [--workloads N] [--pods-each N]``
"""

from __future__ import annotations

import argparse
import copy
import gc
import os
import statistics
import time
from collections import Counter
from pathlib import Path
from typing import Any

import yaml

from wlmap.app import DefinitionSet
from wlmap.metrics import MetricsIndex
from wlmap.sources.manifests import Manifest
from wlmap.sources.workloads import WorkloadReader

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "src" / "wlmap" / "examples"
CORPUS = ROOT.parent / "shared" / "corpus"
CORPUS_SOURCES = [
    ("kubeflow-pytorchjob/simple.yaml", "PyTorchJob"),
    ("lws-leaderworkerset/vllm-gpu.yaml", "LeaderWorkerSet"),
    ("core-gpu/gpu-operator-tests-plugin-test-deployment.yaml", "Deployment"),
    ("core-workloads/kueue-tas-sample-job-required.yaml", "Job"),
]
T0 = "2026-11-01T00:00:00Z"


def bases() -> list[dict[str, Any]]:
    """One object of each example, and of each corpus source when the corpus is there."""
    found = []
    for path in sorted(EXAMPLES.glob("*.yaml")):
        found += [d for d in yaml.safe_load_all(path.read_text(encoding="utf-8")) if d][:1]
    for relative, kind in CORPUS_SOURCES:
        path = CORPUS / relative
        if path.exists():
            docs = yaml.safe_load_all(path.read_text(encoding="utf-8"))
            found += [d for d in docs if isinstance(d, dict) and d.get("kind") == kind][:1]
    return found


def first_template(obj: dict[str, Any]) -> dict[str, Any]:
    """The first pod template found in an object (depth first), or a bare one."""
    stack: list[Any] = [obj.get("spec")]
    while stack:
        item = stack.pop(0)
        if isinstance(item, dict):
            if isinstance(item.get("template"), dict) and "spec" in item["template"]:
                inner: dict[str, Any] = item["template"]
                if "containers" in (inner.get("spec") or {}):
                    return inner
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return {"spec": {"containers": [{"name": "main", "image": "x"}]}}


def cluster(count: int, pods_each: int) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """``count`` workloads with ``pods_each`` pods each, then the nodes."""
    objects: list[dict[str, Any]] = []
    kinds = bases()
    serial = 0
    for index in range(count):
        obj = copy.deepcopy(kinds[index % len(kinds)])
        metadata = obj.setdefault("metadata", {})
        metadata.pop("generateName", None)
        metadata.update(
            name=f"{obj['kind'].lower()}-{index}",
            namespace=f"team-{index % 25}",
            uid=f"w-{index}",
            labels={**(metadata.get("labels") or {}), "team": f"t{index % 7}"},
        )
        template = first_template(obj)
        objects.append(obj)
        for replica in range(pods_each):
            spec = copy.deepcopy(template.get("spec") or {})
            container = spec["containers"][0]
            container.setdefault("resources", {}).setdefault("limits", {})["nvidia.com/gpu"] = 1
            spec["nodeName"] = f"node-{serial // 8}"
            serial += 1
            objects.append(
                {
                    "apiVersion": "v1",
                    "kind": "Pod",
                    "metadata": {
                        "name": f"{metadata['name']}-{replica}",
                        "namespace": metadata["namespace"],
                        "uid": f"p-{index}-{replica}",
                        "labels": dict((template.get("metadata") or {}).get("labels") or {}),
                        "ownerReferences": [
                            {
                                "apiVersion": obj["apiVersion"],
                                "kind": obj["kind"],
                                "name": metadata["name"],
                                "uid": metadata["uid"],
                                "controller": True,
                            }
                        ],
                    },
                    "spec": spec,
                    "status": {
                        "phase": "Running",
                        "startTime": T0,
                        "conditions": [{"type": "Ready", "status": "True"}],
                    },
                }
            )
    nodes = [
        {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {
                "name": f"node-{n}",
                "labels": {"topology.kubernetes.io/zone": f"zone-{n % 10}"},
            },
            "status": {"allocatable": {"cpu": "128", "memory": "1Ti", "nvidia.com/gpu": "8"}},
        }
        for n in range(-(-serial // 8))
    ]
    return objects, nodes


def rss_mb() -> float:
    """Resident memory of this process now, in MB."""
    with open(f"/proc/{os.getpid()}/statm", encoding="ascii") as handle:
        return int(handle.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 1e6


class Run:
    """One index fed with one cluster, and what it cost."""

    def __init__(self, count: int, pods_each: int) -> None:
        objects, nodes = cluster(count, pods_each)
        registry = DefinitionSet(()).merge().registry
        reader = WorkloadReader(registry, [Manifest(o, "bench") for o in objects])
        self.workloads = [o for o in objects if o["kind"] != "Pod"]
        self.pods = {
            o["metadata"]["uid"]: reader.inventory.pods_of(o) or [] for o in self.workloads
        }
        self.reader = reader
        gc.collect()
        before = rss_mb()
        started = time.process_time()
        self.index = MetricsIndex(clock=lambda: 1_800_000_000.0)
        for node in nodes:
            self.index.set_node(node)
        for obj in self.workloads:
            self.feed(obj)
        self.index.synced = True
        self.feed_seconds = time.process_time() - started
        gc.collect()
        self.memory_mb = rss_mb() - before
        self.count, self.pod_count = count, sum(len(p) for p in self.pods.values())

    def feed(self, obj: dict[str, Any]) -> None:
        self.index.set_workload(*self.update(obj))

    def update(self, obj: dict[str, Any]) -> tuple[Any, ...]:
        """The arguments the watches give the index for ``obj``: key, view and pods."""
        entry = self.reader.entry(obj)
        assert entry is not None, obj["kind"]
        view = self.reader.view(entry, obj)
        meta = obj["metadata"]
        return (obj["kind"], meta["namespace"], meta["name"]), view, self.pods[meta["uid"]]

    def update_seconds(self, rounds: int = 400) -> float:
        """CPU seconds the index takes to update one workload (its view, interpreted
        beforehand, and pods set again with one pod's readiness flipped), the median over
        ``rounds`` workloads. The collector is paused while measuring: its passes cost the
        size of the whole heap, whatever holds it."""
        samples = []
        for i in range(rounds):
            obj = self.workloads[(i * 37) % len(self.workloads)]
            pods = self.pods[obj["metadata"]["uid"]]
            if pods:
                condition = pods[0]["status"]["conditions"][0]
                condition["status"] = "False" if condition["status"] == "True" else "True"
            key, view, pods = self.update(obj)
            gc.disable()
            started = time.perf_counter()
            self.index.set_workload(key, view, pods, labels=obj["metadata"]["labels"])
            samples.append(time.perf_counter() - started)
            gc.enable()
        return statistics.median(samples)

    def scrape(self) -> tuple[float, int]:
        """CPU seconds of one scrape right after an update, and the exposition's size."""
        self.update_seconds(rounds=1)
        started = time.process_time()
        text = self.index.render()
        return time.process_time() - started, len(text.encode())


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--workloads", type=int, default=10_000)
    parser.add_argument("--pods-each", type=int, default=10)
    args = parser.parse_args()
    base = Run(args.workloads // 10, args.pods_each)
    full = Run(args.workloads, args.pods_each)
    rows = []
    for run in (base, full):
        scrape, size = min(run.scrape() for _ in range(3))
        rows.append((run, scrape, size, run.update_seconds()))
    (b, b_scrape, _, b_update), (f, f_scrape, f_size, f_update) = rows
    print(f"metrics index: {f.count:,} workloads, {f.pod_count:,} pods (baseline {b.count:,})")
    print(f"  {'':34}{'baseline':>12}{'full':>12}{'ratio':>9}")
    for label, low, high, unit in (
        ("feed (interpret + index), CPU s", b.feed_seconds, f.feed_seconds, "{:.2f}"),
        ("one scrape, CPU s (target <= 1)", b_scrape, f_scrape, "{:.3f}"),
        ("index, RSS MB (<= 300)", b.memory_mb, f.memory_mb, "{:.0f}"),
        ("one workload update, ms", b_update * 1e3, f_update * 1e3, "{:.3f}"),
    ):
        ratio = high / low if low else float("nan")
        print(f"  {label:34}{unit.format(low):>12}{unit.format(high):>12}{ratio:>8.2f}x")
    print(f"  exposition: {f_size / 1e6:.1f} MB")
    kinds = Counter(o["kind"] for o in f.workloads)
    print("  series per workload, by kind (pods' join series included):")
    for kind, series in f.index.series_by_kind().items():
        print(f"    {kind:24}{series / kinds[kind]:>8.1f}  ({kinds[kind]:,} workloads)")


if __name__ == "__main__":
    main()
