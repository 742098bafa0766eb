"""The operator with the placement controller on, for the tests on the KWOK cluster: the
process started with a kubeconfig once its gating webhook is registered, and what the
controller writes (the gate, the workload's condition, its Events)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.integration.fakenodes import BLOCK_LABEL, HOST_LABEL, RACK_LABEL, KwokCluster
from tests.integration.kube import Kube, wait_for
from tests.integration.operator_process import OperatorProcess, placement_operator
from tests.integration.serviceaccount import apply_all, kubeconfig, token
from wlmap.operator.deploy import rbac
from wlmap.operator.deploy.admission import policy_manifests

GATE = "wlmap.dev/placement"
OPT_IN = "wlmap.dev/placement"
CONDITION = "WlmapPlacement"


def start_operator(kube: Kube, config: Path, namespace: str, folder: Path) -> OperatorProcess:
    """The operator with placement on over the fake nodes' three levels, started with a
    kubeconfig, once its webhook is registered with the API server."""
    return placement_operator(
        kube, config, namespace, folder, (BLOCK_LABEL, RACK_LABEL, HOST_LABEL)
    )


def start_as_service_account(
    kwok_cluster: KwokCluster, namespace: str, folder: Path
) -> OperatorProcess:
    """The operator as its own service account, with the generated ``rbac --placement``
    grants and the pod admission policy installed, serving ``namespace`` opted in to gangs
    and placement."""
    kube = kwok_cluster.kube
    kube.namespace(rbac.NAMESPACE)
    apply_all(kube, rbac.manifests(placement=True))
    apply_all(kube, rbac.namespace_bindings([namespace]))  # the namespaced rules, there
    apply_all(kube, policy_manifests(namespaces=(namespace,)))  # the operator serves it
    labels = {"wlmap.dev/gang": "true", OPT_IN: "enabled"}
    opted = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": namespace}}
    kube.patch(opted, {"metadata": {"labels": labels}})
    config = kubeconfig(kwok_cluster.cluster, token(kube), folder / "operator.kubeconfig")
    return start_operator(kube, config, namespace, folder)


def restart_leading(process: OperatorProcess, lease_seconds: int) -> None:
    """Restart the operator as one replica of several, leader election on with a short
    lease, once it leads. Killed (no clean stop), its lease stays held for that long: a
    replica started then follows until the lease expires."""
    process.stop()
    process.arguments = ("--leader-elect",)
    process.env |= {"WLMAP_LEASE_SECONDS": str(lease_seconds), "POD_NAMESPACE": rbac.NAMESPACE}
    process.start()
    wait_for(lambda: "leading" in process.output(), "the replica leading")


def gated(pod: dict[str, Any]) -> bool:
    return any(g.get("name") == GATE for g in pod["spec"].get("schedulingGates") or ())


def condition(kube: Kube, job: dict[str, Any]) -> dict[str, Any] | None:
    """The workload's (a Job's) ``WlmapPlacement`` condition."""
    meta = job["metadata"]
    current = kube.get(
        job.get("apiVersion", "batch/v1"), job.get("kind", "Job"), meta["namespace"], meta["name"]
    )
    conditions = ((current or {}).get("status") or {}).get("conditions") or ()
    return next((c for c in conditions if c.get("type") == CONDITION), None)


def events(kube: Kube, namespace: str, reason: str) -> list[dict[str, Any]]:
    return [e for e in kube.list("v1", "Event", namespace) if e.get("reason") == reason]


__all__ = ["CONDITION", "GATE", "OPT_IN", "condition", "events", "gated", "start_operator"]
