"""The operator with the placement controller on, for the tests on the KWOK cluster: the
process started with a kubeconfig once its gating webhook is registered, and what the
controller writes (the gate, the workload's condition, its Events)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.integration.fakenodes import BLOCK_LABEL, HOST_LABEL, RACK_LABEL
from tests.integration.kube import Kube, wait_for
from tests.integration.operator_process import OperatorProcess
from tests.integration.testcluster import free_port

GATE = "wlmap.dev/placement"
OPT_IN = "wlmap.dev/placement"
CONDITION = "WlmapPlacement"
WEBHOOK_CONFIGURATION = "wlmap.dev"


def start_operator(kube: Kube, config: Path, namespace: str, folder: Path) -> OperatorProcess:
    """The operator with placement on, started with a kubeconfig, once its webhook is
    registered with the API server."""
    env = {
        "WLMAP_PLACEMENT": "true",
        "WLMAP_PLACEMENT_LEVELS": f"{BLOCK_LABEL},{RACK_LABEL},{HOST_LABEL}",
        "WLMAP_WEBHOOK": f"127.0.0.1:{free_port()}",
        "WLMAP_LOG_FORMAT": "plain",
    }
    process = OperatorProcess(config, namespace, folder / "operator.log", env=env).start()
    try:
        wait_for(lambda: _registered(kube, env["WLMAP_WEBHOOK"]), "the gating webhook registered")
    except AssertionError:
        process.stop()
        raise
    return process


def _registered(kube: Kube, address: str) -> bool:
    found = kube.get(
        "admissionregistration.k8s.io/v1",
        "MutatingWebhookConfiguration",
        None,
        WEBHOOK_CONFIGURATION,
    )
    hooks = (found or {}).get("webhooks") or ()
    return any(address in str(h.get("clientConfig", {}).get("url", "")) for h in hooks)


def gated(pod: dict[str, Any]) -> bool:
    return any(g.get("name") == GATE for g in pod["spec"].get("schedulingGates") or ())


def condition(kube: Kube, job: dict[str, Any]) -> dict[str, Any] | None:
    """The Job's ``WlmapPlacement`` condition."""
    current = kube.get("batch/v1", "Job", job["metadata"]["namespace"], job["metadata"]["name"])
    conditions = ((current or {}).get("status") or {}).get("conditions") or ()
    return next((c for c in conditions if c.get("type") == CONDITION), None)


def events(kube: Kube, namespace: str, reason: str) -> list[dict[str, Any]]:
    return [e for e in kube.list("v1", "Event", namespace) if e.get("reason") == reason]


__all__ = ["CONDITION", "GATE", "OPT_IN", "condition", "events", "gated", "start_operator"]
