"""The bundle's webhook objects on the KWOK cluster: with ``WLMAP_WEBHOOK_MANAGED=false``
the operator writes its certificate into the configuration ``rbac --placement`` generates,
the API server calls it through the generated Service, a gang in a namespace labelled
``wlmap.dev/placement: enabled`` is gated and placed in one rack, and a workload opted in
by annotation in a namespace without the label never reaches the webhook.

The Service becomes an ExternalName naming ``localhost`` (no pod runs here; see
``kueue.py``), on the port the operator serves, which the configuration names too."""

from __future__ import annotations

import copy
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.integration.fakenodes import BLOCK_LABEL, HOST_LABEL, RACK_LABEL, KwokCluster
from tests.integration.kube import empty_namespace, wait_for
from tests.integration.kwokpods import placement, running
from tests.integration.operator_process import OperatorProcess
from tests.integration.placing import gated
from tests.integration.test_operator_placement import _job, _placed
from tests.integration.testcluster import free_port
from wlmap.operator.deploy import rbac
from wlmap.operator.deploy.webhooks import service_host, webhook_manifests

OPT_IN = "wlmap.dev/placement"
ADMISSION = "admissionregistration.k8s.io/v1"


@pytest.fixture
def bundled(
    kwok_cluster: KwokCluster, kwok_namespace: str, tmp_path: Path
) -> Iterator[OperatorProcess]:
    """The generated Service (as an ExternalName) and configuration, and the operator
    serving the test's namespace with them, once it has written the caBundle."""
    kube = kwok_cluster.kube
    port = free_port()
    service, configuration = copy.deepcopy(webhook_manifests())
    service["spec"] = {
        "type": "ExternalName",
        "externalName": "localhost",
        "ports": [{"name": "webhook", "port": port}],
    }
    configuration["webhooks"][0]["clientConfig"]["service"]["port"] = port
    kube.namespace(rbac.NAMESPACE)
    kube.delete(configuration)  # the one kopf kept for an earlier test, emptied
    made = [kube.create(service), kube.create(configuration)]
    namespace = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": kwok_namespace}}
    kube.patch(namespace, {"metadata": {"labels": {"wlmap.dev/gang": "true", OPT_IN: "enabled"}}})
    env = {
        "WLMAP_PLACEMENT": "true",
        "WLMAP_PLACEMENT_LEVELS": f"{BLOCK_LABEL},{RACK_LABEL},{HOST_LABEL}",
        "WLMAP_WEBHOOK": f"{service_host()}:{port}",
        "WLMAP_WEBHOOK_MANAGED": "false",
        "WLMAP_LOG_FORMAT": "plain",
    }
    config = kwok_cluster.cluster.kubeconfig
    # every namespace labelled for gangs: the test's, and the one without the opt-in label
    env["WLMAP_NAMESPACE_SELECTOR"] = "wlmap.dev/gang=true"
    process = OperatorProcess(config, None, tmp_path / "operator.log", env=env).start()
    try:
        wait_for(lambda: _ca_bundle(kwok_cluster), "the operator's certificate in the bundle")
        # the certificate is written at start-up, before kopf's server listens: a pod
        # created in between would pass ungated (the configuration fails open)
        wait_for(lambda: _listening(port), "the operator's webhook server listening")
        yield process
    finally:
        process.stop()
        for obj in reversed(made):
            kube.delete(obj)


def _listening(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
    except OSError:
        return False
    return True


def _ca_bundle(kwok_cluster: KwokCluster) -> str | None:
    found = kwok_cluster.kube.get(ADMISSION, "MutatingWebhookConfiguration", None, "wlmap.dev")
    hooks: list[dict[str, Any]] = (found or {}).get("webhooks") or []
    return hooks[0]["clientConfig"].get("caBundle") if hooks else None


def test_the_bundles_webhook_gates_opted_in_namespaces_only(
    kwok_cluster: KwokCluster, kwok_namespace: str, bundled: OperatorProcess
) -> None:
    kube = kwok_cluster.kube
    job = kube.create(_job("through-service", 4, 8), kwok_namespace)
    pods = wait_for(running(kube, kwok_namespace, job, 4), "the Job's 4 pods Running", timeout=90)
    assert len({labels[RACK_LABEL] for labels in placement(kwok_cluster, pods).values()}) == 1
    assert all(p["spec"]["affinity"]["nodeAffinity"] for p in pods), bundled.output()[-3000:]
    wait_for(lambda: _placed(kube, job), "the Job's condition saying it was placed")
    # opted in by its own annotation, in a namespace the configuration does not select
    other = kube.namespace(f"{kwok_namespace}-unlabelled")
    served = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": other}}
    kube.patch(served, {"metadata": {"labels": {"wlmap.dev/gang": "true"}}})
    plain = _job("annotated", 4, 8)
    plain["metadata"]["annotations"] = {OPT_IN: "enabled"}
    plain["spec"]["template"]["metadata"]["annotations"][OPT_IN] = "enabled"
    made = kube.create(plain, other)
    try:
        pods = wait_for(running(kube, other, made, 4), "the plain Job's 4 pods Running", timeout=90)
        assert not any(gated(p) or p["spec"].get("affinity") for p in pods)
    finally:  # its pods gone before the next test plans on the shared cluster
        empty_namespace(kube, other)
        kube.delete(served)
