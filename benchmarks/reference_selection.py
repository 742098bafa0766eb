"""Reading PodCliqueSets with their children from one dump: a selection stays linear.

Each PodCliqueSet selects its PodCliques and scaling groups among every object of the dump
(references with ``ownedByWorkload``). The dump is built from the corpus simple1 sample and
the children of its catalog case, N copies in one namespace (the worst case: every child
has the same kind and namespace). It reports the read time of N and of 2N PodCliqueSets in
the same run; a selection that scanned every child for every workload would make the
ratio about 4, a linear one about 2. The cost of the children is shown against the same
PodCliqueSets read without them.

Run: ``python benchmarks/reference_selection.py [--count N]``
"""

from __future__ import annotations

import argparse
import copy
import time
from pathlib import Path
from typing import Any

import yaml

from wlmap.app import definitions_in_use
from wlmap.sources.manifests import Manifest
from wlmap.sources.workloads import WorkloadReader

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpus" / "grove-podcliqueset" / "simple1.yaml"
CASE = (
    ROOT
    / "tests/catalog/cases/grove-io-podcliqueset-v1alpha1/degraded-podclique-below-min-available.yaml"
)


def family() -> list[dict[str, Any]]:
    """One PodCliqueSet (the corpus sample, with the case's status) and its children."""
    case = yaml.safe_load(CASE.read_text(encoding="utf-8"))
    pcs = next(
        d
        for d in yaml.safe_load_all(CORPUS.read_text(encoding="utf-8"))
        if isinstance(d, dict) and d.get("kind") == "PodCliqueSet"
    )
    pcs = {**pcs, "metadata": {**pcs["metadata"], **case["object"]["metadata"]}}
    pcs["status"] = case["object"]["status"]
    return [pcs, *case["references"]["podCliques"], *case["references"]["scalingGroups"]]


def build(count: int, *, children: bool) -> list[Manifest]:
    manifests = []
    objects = family() if children else family()[:1]
    for index in range(count):
        for original in objects:
            obj = copy.deepcopy(original)
            metadata = obj["metadata"]
            metadata["name"] = metadata["name"].replace("simple1", f"set{index}")
            metadata["uid"] = f"{metadata['uid'][:-6]}{index:06d}"
            for owner in metadata.get("ownerReferences", ()):
                owner.update(name=f"set{index}", uid=f"{owner['uid'][:-6]}{index:06d}")
            labels = metadata.get("labels") or {}
            if "app.kubernetes.io/part-of" in labels:
                labels["app.kubernetes.io/part-of"] = f"set{index}"
            manifests.append(Manifest(obj, "bench"))
    return manifests


def read_time(manifests: list[Manifest]) -> float:
    """Best of three reads of the whole input."""
    registry = definitions_in_use()
    best = float("inf")
    for _ in range(3):
        reader = WorkloadReader(registry, manifests)
        start = time.perf_counter()
        reader.read()
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--count", type=int, default=400)
    args = parser.parse_args()
    read_time(build(2, children=True))  # compile the definition before measuring
    alone = read_time(build(args.count, children=False))
    single = read_time(build(args.count, children=True))
    double = read_time(build(2 * args.count, children=True))
    print(f"{args.count} PodCliqueSets without children (baseline): {alone:.2f} s")
    print(f"{args.count} PodCliqueSets with 3 children each:       {single:.2f} s")
    print(f"{2 * args.count} PodCliqueSets with 3 children each:       {double:.2f} s")
    print(f"ratio with / without children: {single / alone:.2f}")
    print(f"ratio 2N / N (linear: about 2): {double / single:.2f}")


if __name__ == "__main__":
    main()
