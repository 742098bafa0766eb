"""How long unrelated workloads wait for their gangs while one slow definition is served.

Starts its own kube-apiserver and etcd (built by scripts/build-apiserver.sh) and an
operator process serving two namespaces. First JobSets alone (the baseline: the built-in
definition, nothing else to do), then a WorkloadMap whose worker replicas path is killed
at the 2-second limit every time, applied to COUNT LeaderWorkerSets in the other
namespace, while JobSets keep being created one a second. Prints each phase's gang
latency (creation to gang object) and its ratio to the baseline of the same run.

    .venv/bin/python benchmarks/operator_slow_definition.py [COUNT] [SECONDS]
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the test harness's package

from tests.integration.conftest import TEST_CRDS
from tests.integration.kube import Kube, wait_for
from tests.integration.operator_process import OperatorProcess
from tests.integration.slow_definition import (
    DEFINITION_CRDS,
    WORKLOADMAP,
    Latencies,
    degraded,
    jobset_latencies,
    leaderworkersets,
    slow_lws_definition,
)
from tests.integration.testcluster import TestCluster, build_binaries

NAME = "lws-slow-workers"


def main(count: int, seconds: float) -> None:
    phases: dict[str, Latencies] = {}
    with tempfile.TemporaryDirectory() as folder:
        cluster = TestCluster(build_binaries(), Path(folder))
        cluster.start()
        operator = OperatorProcess(
            cluster.kubeconfig, "jobsets", Path(folder) / "operator.log", arguments=("-n", "lws")
        )
        try:
            with cluster.client() as client:
                kube = Kube(client)
                kube.install_crds((*TEST_CRDS, *DEFINITION_CRDS))
                kube.namespace("jobsets")
                kube.namespace("lws")
                operator.start()
                phases["baseline"] = jobset_latencies(kube, "jobsets", "baseline", seconds)
                document = slow_lws_definition(NAME)
                kube.create({"apiVersion": WORKLOADMAP[0], "kind": WORKLOADMAP[1]} | document)
                leaderworkersets(kube, "lws", count)
                phases["slow definition"] = jobset_latencies(kube, "jobsets", "slow", seconds)
                reason = wait_for(lambda: degraded(kube, NAME).get("reason"), "Degraded")
        finally:
            operator.stop()
            cluster.stop()
    base = phases["baseline"]
    print(f"JobSet gang latency, {count} LeaderWorkerSets on a definition killed at 2 s")
    for phase, got in phases.items():
        print(
            f"  {phase:16} {len(got.seconds):3} JobSets   median {got.median():5.2f} s "
            f"({got.median() / base.median():4.2f}x)   worst {got.worst():5.2f} s "
            f"({got.worst() / base.worst():4.2f}x)"
        )
    print(f"  slow definition's Degraded reason at the end: {reason}")


if __name__ == "__main__":
    main(
        int(sys.argv[1]) if len(sys.argv) > 1 else 20,
        float(sys.argv[2]) if len(sys.argv) > 2 else 120.0,
    )
