"""The integration fixtures: one real API server per test run, a namespace per test."""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.corpus import corpus_path
from tests.integration import grove as grove_crds
from tests.integration.fakenodes import KwokCluster, Topology
from tests.integration.fakenodes import kwok_cluster as kwok_cluster_running
from tests.integration.gangcluster import GangCluster
from tests.integration.gangcluster import gang_cluster as gang_cluster_running
from tests.integration.kube import Kube, empty_namespace
from tests.integration.kueue import KUEUE_SCRIPT, Kueue
from tests.integration.operator_process import OperatorProcess
from tests.integration.prometheus import PROMETHEUS_SCRIPT
from tests.integration.prometheus import WHAT as PROMETHEUS
from tests.integration.testcluster import BuildUnavailable, TestCluster, build_binaries, remove
from tests.integration.wlmapcli import Wlmap, fixed_terminal

# CRDs of the kinds the integration tests create (all from the corpus).
TEST_CRDS = (
    "jobset.x-k8s.io_jobsets.yaml",
    "kubeflow.org_pytorchjobs.yaml",
    "ray.io_rayclusters.yaml",
    "leaderworkerset.x-k8s.io_leaderworkersets.yaml",
    "scheduling.run.ai_podgroups.yaml",
    "scheduling.volcano.sh_podgroups.yaml",
    "trainer.kubeflow.org_trainjobs.yaml",
    "trainer.kubeflow.org_clustertrainingruntimes.yaml",
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if Path(str(item.fspath)).is_relative_to(Path(__file__).parent):
            item.add_marker(pytest.mark.integration)


def terminal(config: pytest.Config) -> Callable[[str], None] | None:
    """Writes whole lines to pytest's terminal, past the output capture of the test run."""
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    capture = config.pluginmanager.get_plugin("capturemanager")
    if reporter is None or capture is None:
        return None

    def write(line: str) -> None:
        with capture.global_and_fixture_disabled():
            reporter.write_line(line)

    return write


@pytest.fixture(scope="session")
def cluster(
    tmp_path_factory: pytest.TempPathFactory, pytestconfig: pytest.Config
) -> Iterator[TestCluster]:
    for name in TEST_CRDS:  # skip before building a server the tests could not use
        corpus_path(f"crds/{name}")
    try:  # the first run builds for minutes (or waits for another run's build): show it
        binaries = build_binaries(progress=terminal(pytestconfig))
    except BuildUnavailable as missing_go:
        pytest.skip(str(missing_go))
    folder = tmp_path_factory.mktemp("apiserver")
    server = TestCluster(binaries, folder)
    try:
        server.start()
        with server.client() as client:
            Kube(client).install_crds(TEST_CRDS)
        yield server
    finally:
        server.stop()
        remove(folder / "etcd")


@pytest.fixture(scope="session")
def kube(cluster: TestCluster) -> Iterator[Kube]:
    with cluster.client() as client:
        yield Kube(client)


@pytest.fixture
def namespace(kube: Kube, request: pytest.FixtureRequest) -> str:
    name = re.sub(r"[^a-z0-9-]", "-", request.node.name.lower())[:50].strip("-")
    return kube.namespace(name)


@pytest.fixture
def wlmap(
    cluster: TestCluster, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> Wlmap:
    """The CLI against the test cluster, at a fixed terminal width."""
    fixed_terminal(monkeypatch)
    return Wlmap(cluster.kubeconfig, capsys)


@pytest.fixture
def operator(cluster: TestCluster, namespace: str, tmp_path: Path) -> Iterator[OperatorProcess]:
    """The operator (KAI target) serving the test's namespace."""
    process = OperatorProcess(cluster.kubeconfig, namespace, tmp_path / "operator.log")
    try:
        yield process.start()
    finally:
        process.stop()


@pytest.fixture
def grove(kube: Kube, tmp_path: Path) -> Iterator[None]:
    """Grove's CRDs installed for the test: the PodCliqueSet's and its children's."""
    names = grove_crds.install(kube, tmp_path)
    try:
        yield
    finally:
        kube.remove_crds(names)


@pytest.fixture(scope="session")
def kwok_cluster(
    tmp_path_factory: pytest.TempPathFactory, pytestconfig: pytest.Config
) -> Iterator[KwokCluster]:
    """A cluster apart from ``cluster``'s, where kube-controller-manager, kube-scheduler and
    KWOK run, with fake GPU nodes in a block/rack/host topology, all Ready. How long the
    start and the nodes took is written to the terminal."""
    try:
        with kwok_cluster_running(
            tmp_path_factory.mktemp("kwok-cluster"), Topology(), terminal(pytestconfig) or print
        ) as running:
            yield running
    except BuildUnavailable as missing_go:
        pytest.skip(str(missing_go))


@pytest.fixture
def kwok_namespace(kwok_cluster: KwokCluster, request: pytest.FixtureRequest) -> Iterator[str]:
    """A namespace of the test's own on the KWOK cluster, emptied afterwards: the cluster
    is shared by the session, and pods left running would hold GPUs the next test's plans
    count on (every plan prefers the first free rack)."""
    name = re.sub(r"[^a-z0-9-]", "-", request.node.name.lower())[:50].strip("-")
    yield kwok_cluster.kube.namespace(name)
    empty_namespace(kwok_cluster.kube, name)


@pytest.fixture(scope="module")
def kueue(kwok_cluster: KwokCluster, pytestconfig: pytest.Config) -> Iterator[Kueue]:
    """Kueue's controller manager on the KWOK cluster (batch Jobs only), its CRDs and
    webhooks installed, for one test module: afterwards no Kueue acts on the shared
    cluster's Jobs."""
    say = terminal(pytestconfig) or print
    try:
        binaries = build_binaries(progress=say, script=KUEUE_SCRIPT, what="kueue")
    except BuildUnavailable as missing_go:
        pytest.skip(str(missing_go))
    manager = Kueue(binaries, kwok_cluster.cluster, kwok_cluster.kube)
    try:
        started = time.monotonic()
        manager.start()
        say(
            f"kueue: CRDs, webhooks and controller manager ready in {time.monotonic() - started:.1f} s"
        )
        yield manager
    finally:
        manager.stop()


@pytest.fixture(scope="session")
def prometheus_binaries(pytestconfig: pytest.Config) -> Path:
    """The folder holding prometheus and promtool, built on first use."""
    try:
        return build_binaries(
            progress=terminal(pytestconfig), script=PROMETHEUS_SCRIPT, what=PROMETHEUS
        )
    except BuildUnavailable as missing_go:
        pytest.skip(str(missing_go))


@pytest.fixture(scope="module")
def gang_cluster(
    tmp_path_factory: pytest.TempPathFactory, pytestconfig: pytest.Config
) -> Iterator[GangCluster]:
    """A cluster of its own, for one test module, whose kube-scheduler schedules gangs of
    the upstream Workload API, with JobSet's and Trainer's controllers and KWOK completing
    Jobs' pods (see gangcluster.py): the other clusters keep the default scheduler."""
    try:
        with gang_cluster_running(
            tmp_path_factory.mktemp("gang-cluster"), terminal(pytestconfig) or print
        ) as running:
            yield running
    except BuildUnavailable as missing_go:
        pytest.skip(str(missing_go))
