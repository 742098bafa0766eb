"""The operator's webhooks as deployed objects: a Service in front of the operator's
webhook port and a MutatingWebhookConfiguration listing the placement gate, which only
opted-in namespaces pass through, and (for the Workload API target) the pod group, which
every namespace but the system ones and the operator's passes (the operator itself tells
served namespaces apart, in every serving mode).

Run in the cluster, the operator is reached through a Service, and pod creations should
reach it only from namespaces labelled ``wlmap.dev/placement: enabled`` (kopf's own
configuration has no namespace selector, so every pod creation in the cluster would pass
the webhook). The bundle therefore ships the configuration itself
(``python -m wlmap.operator.deploy DIR --placement`` writes ``webhook.yaml``), and the
operator, started with ``WLMAP_WEBHOOK_MANAGED=false``, leaves it to the bundle and only
writes its certificate into the ``caBundle`` of each of the configuration's webhooks at
start (the certificate is made at each start; one replica serves, see the Deployment). A
workload annotated ``enabled`` in a namespace without the label is then not gated: the
namespace label is the opt-in with this configuration, the workload's ``disabled`` still
opts out.
"""

from __future__ import annotations

import base64
from typing import Any

from wlmap.errors import ClusterError
from wlmap.operator.core.gate import ENABLED, OPT_IN, WEBHOOK_CONFIGURATION
from wlmap.operator.core.scope import SYSTEM_NAMESPACES
from wlmap.operator.core.settings import FIELD_MANAGER as NAME  # the operator's name
from wlmap.operator.core.webhook import POD_GROUP_HANDLER
from wlmap.operator.deploy.rbac import LABELS, NAMESPACE
from wlmap.sources.cluster import ApiError, Cluster

__all__ = [
    "HANDLER_PATH",
    "POD_GROUP_PATH",
    "SERVICE",
    "WEBHOOK_PORT",
    "inject_ca",
    "service_host",
    "webhook_manifests",
]

SERVICE = f"{NAME}-webhook"
WEBHOOK_PORT = 9443  # the operator's default WLMAP_WEBHOOK port
HANDLER_PATH = "/placement-gate"  # kopf serves each handler at /<its id>
POD_GROUP_PATH = f"/{POD_GROUP_HANDLER}"
JSON_PATCH = "application/json-patch+json"
_CONFIGURATIONS = "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations"


def service_host(namespace: str = NAMESPACE) -> str:
    """The name the API server calls the Service by, which the certificate must carry."""
    return f"{SERVICE}.{namespace}.svc"


def webhook_manifests(
    namespace: str = NAMESPACE, placement: bool = True, pod_groups: bool = False
) -> list[dict[str, Any]]:
    """The Service and the MutatingWebhookConfiguration (without ``caBundle``, which the
    operator writes at start): the placement gate's webhook with ``placement``, then the
    pod group's with ``pod_groups``."""
    service = {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": {"name": SERVICE, "namespace": namespace, "labels": LABELS},
        "spec": {
            "selector": {"app.kubernetes.io/name": NAME},
            "ports": [{"name": "webhook", "port": 443, "targetPort": WEBHOOK_PORT}],
        },
    }
    opted_in = {"matchExpressions": [{"key": OPT_IN, "operator": "In", "values": [ENABLED]}]}
    unserved = sorted({*SYSTEM_NAMESPACES, namespace})
    not_unserved = {
        "matchExpressions": [
            {"key": "kubernetes.io/metadata.name", "operator": "NotIn", "values": unserved}
        ]
    }
    hooks = [
        *([_hook("placement-gate", HANDLER_PATH, opted_in, namespace)] if placement else []),
        *(
            [_hook(POD_GROUP_HANDLER, POD_GROUP_PATH, not_unserved, namespace)]
            if pod_groups
            else []
        ),
    ]
    configuration = {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "MutatingWebhookConfiguration",
        "metadata": {"name": WEBHOOK_CONFIGURATION, "labels": LABELS},
        "webhooks": hooks,
    }
    return [service, configuration]


def _hook(name: str, path: str, namespaces: dict[str, Any], namespace: str) -> dict[str, Any]:
    """One webhook on pod creation, calling the operator's Service at ``path``."""
    return {
        "name": f"{name}.{WEBHOOK_CONFIGURATION}",
        "clientConfig": {
            "service": {"name": SERVICE, "namespace": namespace, "path": path, "port": 443}
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
        "namespaceSelector": namespaces,
        # pod creation never waits on the operator: a pod it did not answer for is created
        # as it came (ungated, or in no group)
        "failurePolicy": "Ignore",
        "sideEffects": "None",
        "matchPolicy": "Equivalent",
        "timeoutSeconds": 5,
        "admissionReviewVersions": ["v1"],
    }


async def inject_ca(cluster: Cluster, certificate: bytes, hooks: int = 1) -> None:
    """Write ``certificate`` (PEM, its own CA) as the ``caBundle`` of the bundle's
    ``hooks`` webhooks (the operator's mutations, :func:`wlmap.operator.core.webhook.mutations`).

    Raises:
        ClusterError: the configuration is not there (the bundle's ``webhook.yaml`` was
            not applied) or may not be patched.
    """
    path = f"{_CONFIGURATIONS}/{WEBHOOK_CONFIGURATION}"
    bundle = base64.b64encode(certificate).decode()
    patch = [
        {"op": "add", "path": f"/webhooks/{index}/clientConfig/caBundle", "value": bundle}
        for index in range(hooks)
    ]
    try:
        await cluster.request("PATCH", path, body=patch, content_type=JSON_PATCH)
    except ApiError as exc:
        raise ClusterError(
            f"MutatingWebhookConfiguration {WEBHOOK_CONFIGURATION}: expected the one the "
            f"deployed bundle holds (webhook.yaml) with {hooks} webhook(s), since "
            f"WLMAP_WEBHOOK_MANAGED is off; could not write their caBundle: {exc}"
        ) from None
