"""The gating webhook as deployed objects: a Service in front of the operator's webhook
port and a MutatingWebhookConfiguration that only opted-in namespaces pass through.

Run in the cluster, the operator is reached through a Service, and pod creations should
reach it only from namespaces labelled ``wlmap.dev/placement: enabled`` (kopf's own
configuration has no namespace selector, so every pod creation in the cluster would pass
the webhook). The bundle therefore ships the configuration itself
(``python -m wlmap.operator.deploy DIR --placement`` writes ``webhook.yaml``), and the
operator, started with ``WLMAP_WEBHOOK_MANAGED=false``, leaves it to the bundle and only
writes its certificate into the configuration's ``caBundle`` at start (the certificate is
made at each start; one replica serves, see the Deployment). A workload annotated
``enabled`` in a namespace without the label is then not gated: the namespace label is
the opt-in with this configuration, the workload's ``disabled`` still opts out.
"""

from __future__ import annotations

import base64
from typing import Any

from wlmap.errors import ClusterError
from wlmap.operator.core.gate import ENABLED, OPT_IN, WEBHOOK_CONFIGURATION
from wlmap.operator.core.settings import FIELD_MANAGER as NAME  # the operator's name
from wlmap.operator.deploy.rbac import LABELS, NAMESPACE
from wlmap.sources.cluster import ApiError, Cluster

__all__ = [
    "HANDLER_PATH",
    "SERVICE",
    "WEBHOOK_PORT",
    "inject_ca",
    "service_host",
    "webhook_manifests",
]

SERVICE = f"{NAME}-webhook"
WEBHOOK_PORT = 9443  # the operator's default WLMAP_WEBHOOK port
HANDLER_PATH = "/placement-gate"  # kopf serves each handler at /<its id>
JSON_PATCH = "application/json-patch+json"
_CONFIGURATIONS = "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations"


def service_host(namespace: str = NAMESPACE) -> str:
    """The name the API server calls the Service by, which the certificate must carry."""
    return f"{SERVICE}.{namespace}.svc"


def webhook_manifests(namespace: str = NAMESPACE) -> list[dict[str, Any]]:
    """The Service and the MutatingWebhookConfiguration (without ``caBundle``, which the
    operator writes at start)."""
    service = {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": SERVICE, "namespace": namespace, "labels": LABELS},
        "spec": {
            "selector": {"app.kubernetes.io/name": NAME},
            "ports": [{"name": "webhook", "port": 443, "targetPort": WEBHOOK_PORT}],
        },
    }
    configuration = {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "MutatingWebhookConfiguration",
        "metadata": {"name": WEBHOOK_CONFIGURATION, "labels": LABELS},
        "webhooks": [
            {
                "name": f"placement-gate.{WEBHOOK_CONFIGURATION}",
                "clientConfig": {
                    "service": {
                        "name": SERVICE,
                        "namespace": namespace,
                        "path": HANDLER_PATH,
                        "port": 443,
                    }
                },
                "rules": [
                    {
                        "apiGroups": [""],
                        "apiVersions": ["v1"],
                        "operations": ["CREATE"],
                        "resources": ["pods"],
                        "scope": "Namespaced",
                    }
                ],
                "namespaceSelector": {
                    "matchExpressions": [{"key": OPT_IN, "operator": "In", "values": [ENABLED]}]
                },
                # pod creation never waits on the operator: an ungated pod is scheduled
                "failurePolicy": "Ignore",
                "sideEffects": "None",
                "matchPolicy": "Equivalent",
                "timeoutSeconds": 5,
                "admissionReviewVersions": ["v1"],
            }
        ],
    }
    return [service, configuration]


async def inject_ca(cluster: Cluster, certificate: bytes) -> None:
    """Write ``certificate`` (PEM, its own CA) as the ``caBundle`` of the bundle's one
    webhook.

    Raises:
        ClusterError: the configuration is not there (the bundle's ``webhook.yaml`` was
            not applied) or may not be patched.
    """
    path = f"{_CONFIGURATIONS}/{WEBHOOK_CONFIGURATION}"
    bundle = base64.b64encode(certificate).decode()
    patch = [{"op": "add", "path": "/webhooks/0/clientConfig/caBundle", "value": bundle}]
    try:
        await cluster.request("PATCH", path, body=patch, content_type=JSON_PATCH)
    except ApiError as exc:
        raise ClusterError(
            f"MutatingWebhookConfiguration {WEBHOOK_CONFIGURATION}: expected the one the "
            f"deployed bundle holds (webhook.yaml), since WLMAP_WEBHOOK_MANAGED is off; "
            f"could not write its caBundle: {exc}"
        ) from None
