"""The operator's memory against the pods it serves and the pods elsewhere in the cluster.

Starts its own kube-apiserver and etcd (built by scripts/build-apiserver.sh) and runs the
operator in its default mode (namespaces opted in by the ``wlmap.dev/serve=true`` label),
once per case, each time until it has written the gang of a JobSet in the served
namespace (its cache has listed every pod by then). The operator process's resident
memory is the largest of a few samples taken then. The pods are made directly (no
scheduler binds them), sized like a training job's (env, mounts, labels, annotations).

Cases, cumulative: none; PODS pods in a namespace not served; 3 x PODS there; then PODS
pods in the served namespace besides. Each is printed against the first.

    .venv/bin/python benchmarks/operator_memory.py [PODS]
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the test harness's package

from tests.integration.conftest import TEST_CRDS
from tests.integration.kube import Kube
from tests.integration.memory import label_served, make_pods, serving_operator, settled_rss_mb
from tests.integration.testcluster import TestCluster, build_binaries


def measure(cluster: TestCluster, kube: Kube, served: str, folder: Path, run: str) -> float:
    with serving_operator(kube, cluster.kubeconfig, served, folder / f"{run}.log", run) as op:
        assert op.process is not None
        return settled_rss_mb(op.process.pid)


def main(pods: int) -> None:
    rows: list[tuple[str, float]] = []
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        cluster = TestCluster(build_binaries(), folder)
        cluster.start()
        try:
            with cluster.client() as client:
                kube = Kube(client)
                kube.install_crds(TEST_CRDS)
                served = kube.namespace("served")
                label_served(kube, served)
                elsewhere = kube.namespace("elsewhere")
                rows.append(("no pods", measure(cluster, kube, served, folder, "none")))
                make_pods(cluster.client, elsewhere, pods)
                rows.append(
                    (f"{pods:,} pods elsewhere", measure(cluster, kube, served, folder, "a"))
                )
                make_pods(cluster.client, elsewhere, 3 * pods)  # the first ones exist already
                rows.append(
                    (f"{3 * pods:,} pods elsewhere", measure(cluster, kube, served, folder, "b"))
                )
                make_pods(cluster.client, served, pods)
                rows.append(
                    (
                        f"{3 * pods:,} elsewhere and {pods:,} served",
                        measure(cluster, kube, served, folder, "c"),
                    )
                )
        finally:
            cluster.stop()
    base = rows[0][1]
    print("operator resident memory, default mode (namespaces opted in by label)")
    print(f"  {'':36}{'MB':>8}{'added MB':>10}{'ratio':>8}")
    for label, mb in rows:
        print(f"  {label:36}{mb:>8.1f}{mb - base:>10.1f}{mb / base:>7.2f}x")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 3_000)
