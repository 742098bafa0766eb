"""Per-call cost of typical definition expressions: native evaluator vs libjq.

Run: ``python benchmarks/jq_paths.py``. Prints microseconds per call for each expression on
a real JobSet and RayCluster from the shared corpus, and the libjq/native ratio.
"""

from __future__ import annotations

import sys
import timeit
from pathlib import Path
from typing import Any

import jq
import yaml

from wlmap.jq import Engine

CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "corpus"
CASES = {
    "jobset/tpu-multislice-v6e-jax.yaml": [
        ".spec.replicatedJobs[].name",
        ".spec.replicatedJobs[] | .replicas // 1",
        ".spec.replicatedJobs[0].template",
        '.metadata.labels["kueue.x-k8s.io/queue-name"]',
        ".spec.suspend == true",
        '.status.conditions[]? | select(.type=="Completed") | .status',
        "[.status.replicatedJobsStatus[]? | .failed] | add",
    ],
    "ray-raycluster/autoscaler.yaml": [
        ".spec.workerGroupSpecs[] | .replicas",
        ".spec.headGroupSpec.template.spec.containers[0].resources.limits",
        '[.spec.workerGroupSpecs[] | .groupName] | join(",")',
        'if .spec.enableInTreeAutoscaling then "auto" else "fixed" end',
    ],
}


def _first_object(path: Path) -> dict[str, Any]:
    with path.open(encoding="utf-8") as handle:
        for doc in yaml.safe_load_all(handle):
            if isinstance(doc, dict) and "kind" in doc:
                return doc
    raise SystemExit(f"no object in {path}")


def _per_call(fn: Any, number: int) -> float:
    return min(timeit.repeat(fn, number=number, repeat=5)) / number * 1e6


def main() -> None:
    if not CORPUS.is_dir():
        sys.exit(f"corpus not found at {CORPUS}")
    engine = Engine()
    total_native = total_libjq = 0.0
    print(f"{'expression':<72} {'native us':>10} {'libjq us':>10} {'ratio':>7}")
    for name, texts in CASES.items():
        obj = _first_object(CORPUS / name)
        print(f"# {name} ({obj['kind']})")
        for text in texts:
            program = engine.compile(text)
            baseline = jq.compile(text)
            native = _per_call(lambda p=program, o=obj: p.all(o), 2000)
            libjq = _per_call(lambda b=baseline, o=obj: b.input_value(o).all(), 500)
            total_native += native
            total_libjq += libjq
            flag = "" if program.native else " (libjq)"
            print(f"{text[:72]:<72} {native:>10.2f} {libjq:>10.2f} {libjq / native:>6.1f}x{flag}")
    print(f"{'total':<72} {total_native:>10.2f} {total_libjq:>10.2f} "
          f"{total_libjq / total_native:>6.1f}x")  # fmt: skip


if __name__ == "__main__":
    main()
