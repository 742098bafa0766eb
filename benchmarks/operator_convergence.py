"""How long the operator takes to converge on 1,000 workloads of five kinds.

Starts its own kube-apiserver and etcd (built by scripts/build-apiserver.sh) and an
operator process, then creates, scales (every JobSet) and deletes the workloads. The
baseline is the time the API writes themselves take in the same run: the ratio says how
far behind the writes the operator's view of the cluster trails.

    .venv/bin/python benchmarks/operator_convergence.py [COUNT]
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the test harness's package

from tests.integration.conftest import TEST_CRDS
from tests.integration.kube import Kube
from tests.integration.load import run_load
from tests.integration.operator_process import OperatorProcess
from tests.integration.testcluster import TestCluster, build_binaries


def main(count: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        cluster = TestCluster(build_binaries(), Path(folder))
        cluster.start()
        operator = OperatorProcess(cluster.kubeconfig, "load", Path(folder) / "operator.log")
        try:
            with cluster.client() as client:
                kube = Kube(client)
                kube.install_crds(TEST_CRDS)
                kube.namespace("load")
                operator.start()
                run = run_load(kube, "load", count)
        finally:
            operator.stop()
            cluster.stop()
    times = run.timings
    print(f"{count} workloads of five kinds (JobSet, PyTorchJob, RayCluster, LWS, Job)")
    for step, writes_step in (("created", "create"), ("scaled", "scale"), ("deleted", "delete")):
        writes = times[writes_step]
        done = times[f"converge-{step}"]
        print(
            f"  {step:8} API writes {writes:6.1f} s   converged {done:6.1f} s   ratio {done / writes:4.2f}x"
        )


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 1000)
