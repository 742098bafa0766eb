"""The placement gate: which pods the placement controller holds, and the webhook that
holds them.

A pod is held by the scheduling gate ``wlmap.dev/placement`` (``spec.schedulingGates``):
kube-scheduler leaves a gated pod alone, and while it is gated its node affinity may be
narrowed (Kubernetes 1.27+, mutable pod scheduling directives). The gate can only be set
when the pod is created, so a mutating admission webhook served by the operator (kopf's
webhook server; kopf keeps the ``MutatingWebhookConfiguration`` named ``wlmap.dev``
pointing at it) adds it to the pods of opted-in workloads.

Opting in: the namespace's label or the workload's annotation ``wlmap.dev/placement:
enabled`` (either; ``disabled`` on the workload overrides its namespace). The workload is
found through the pod's owner chain in the operator's cache; when the chain is not known
yet (the Job's watch event not arrived when its first pod is created), the pod's own
annotation, copied from its template, counts as the workload's. The webhook fails open
(``failurePolicy: Ignore``): an operator that is down leaves pods ungated, never blocks
their creation.
"""

from __future__ import annotations

import asyncio
import datetime
import ipaddress
import logging
import tempfile
from collections.abc import AsyncIterator, Mapping
from pathlib import Path
from typing import Any

import kopf

from wlmap.operator.core.gate import ENABLED, GATE, OPT_IN, is_gated
from wlmap.operator.core.owners import complete_chain
from wlmap.operator.placing.state import PlacingState

log = logging.getLogger("wlmap.operator")


def opted_in(state: PlacingState, workload: Mapping[str, Any]) -> bool:
    """Whether placement is on for a workload: the feature is on, its namespace is served,
    and the workload or its namespace says ``enabled`` (the workload's ``disabled`` wins)."""
    meta = workload.get("metadata") or {}
    namespace = meta.get("namespace")
    if not state.settings.placement or not state.serves_namespace(namespace):
        return False
    own = (meta.get("annotations") or {}).get(OPT_IN)
    if own is not None:
        return bool(own == ENABLED)
    return state.namespace_labels.get(str(namespace), {}).get(OPT_IN) == ENABLED


async def should_gate(state: PlacingState, pod: Mapping[str, Any]) -> bool:
    """Whether a pod being created gets the gate: its top-level workload opted in (its
    pod annotation standing in for the workload while the chain is unknown)."""
    meta = pod.get("metadata") or {}
    if not meta.get("ownerReferences") or is_gated(pod):
        return False
    top: Mapping[str, Any] = pod
    if state.cache is not None:
        chain = await complete_chain(state.cache, {"kind": "Pod", "apiVersion": "v1", **pod})
        mapped = [
            o
            for o in chain
            if state.store.registry.find(str(o.get("apiVersion")), str(o.get("kind"))) is not None
        ]
        if mapped:
            top = mapped[-1]
            if not state.serves(top):
                return False
    return opted_in(state, {"metadata": {**meta, "annotations": _annotations(top)}})


def _annotations(obj: Mapping[str, Any]) -> dict[str, str]:
    return dict((obj.get("metadata") or {}).get("annotations") or {})


def register_webhook(registry: kopf.OperatorRegistry, state: PlacingState) -> None:
    """The mutating webhook that gates the pods of opted-in workloads at creation."""

    @kopf.on.mutate(
        "",
        "v1",
        "pods",
        id="placement-gate",
        operations=["CREATE"],
        ignore_failures=True,
        registry=registry,
    )
    async def gate(body: kopf.Body, patch: kopf.Patch, **_: Any) -> None:
        pod = dict(body)
        if await should_gate(state, pod):
            gates = list((pod.get("spec") or {}).get("schedulingGates") or ())
            patch.spec["schedulingGates"] = [*gates, {"name": GATE}]


def webhook_server(state: PlacingState, folder: Path | None = None) -> kopf.WebhookServer:
    """kopf's webhook server on the configured port, with a self-signed certificate for
    the configured host (kopf's own generator needs packages not installed here)."""
    host, port = state.settings.webhook_address
    where = Path(folder or tempfile.mkdtemp(prefix="wlmap-webhook-"))
    cert, key = where / "tls.crt", where / "tls.key"
    cert_bytes, key_bytes = self_signed(host)
    cert.write_bytes(cert_bytes)
    key.write_bytes(key_bytes)
    return _Serving(
        state.webhook_serving,
        addr="0.0.0.0",
        port=port,
        host=host,
        certfile=str(cert),
        pkeyfile=str(key),
    )


class _Serving(kopf.WebhookServer):
    """kopf's webhook server, setting ``serving`` once it listens: a pod created before
    then is not gated (the webhook fails open), so what makes replacements at start
    waits for it."""

    def __init__(self, serving: asyncio.Event, **options: Any) -> None:
        super().__init__(**options)
        self.serving = serving

    async def __call__(self, fn: kopf.WebhookFn) -> AsyncIterator[kopf.WebhookClientConfig]:
        async for config in super().__call__(fn):
            self.serving.set()
            yield config


def self_signed(host: str) -> tuple[bytes, bytes]:
    """A certificate (PEM) for ``host`` that is its own CA, and its key (PEM)."""
    from cryptography import x509  # noqa: PLC0415 - only with placement on
    from cryptography.hazmat.primitives import hashes, serialization  # noqa: PLC0415
    from cryptography.hazmat.primitives.asymmetric import ec  # noqa: PLC0415 - start-up cost
    from cryptography.x509.oid import NameOID  # noqa: PLC0415

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, host)])
    try:
        alt: x509.GeneralName = x509.IPAddress(ipaddress.ip_address(host))
    except ValueError:
        alt = x509.DNSName(host)
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=365))
        .add_extension(x509.SubjectAlternativeName([alt]), critical=False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    return (
        cert.public_bytes(serialization.Encoding.PEM),
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        ),
    )
