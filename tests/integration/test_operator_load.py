"""1,000 workloads of five kinds created, scaled and deleted under a running operator."""

from __future__ import annotations

from pathlib import Path

from tests.integration.kube import Kube
from tests.integration.load import run_load
from tests.integration.operator_process import OperatorProcess
from tests.integration.testcluster import TestCluster


def test_a_thousand_workloads_converge_to_one_correct_group_each(
    cluster: TestCluster, kube: Kube, namespace: str, tmp_path: Path
) -> None:
    process = OperatorProcess(cluster.kubeconfig, namespace, tmp_path / "op.log")
    try:
        process.start()
        run = run_load(kube, namespace, 1000)
        assert run.created == 1000
        assert process.healthy()
    finally:
        process.stop()
    print("convergence seconds:", {k: round(v, 1) for k, v in run.timings.items()})
