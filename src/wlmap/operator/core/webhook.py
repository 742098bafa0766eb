"""The operator's one admission webhook server, which every room's mutation shares.

kopf serves every registered mutating handler on one server (each at ``/<its id>``) and,
when it manages the configuration, keeps one ``MutatingWebhookConfiguration`` listing
them. The placement gate (``operator.placing``) and the Workload API's pod group
(``operator.gangs``) each register their mutation with kopf; neither imports the other,
and the runtime starts the server when at least one of them is on (:func:`wanted`).
"""

from __future__ import annotations

import asyncio
import datetime
import ipaddress
import tempfile
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import kopf

from wlmap.operator.core.settings import SYNC_TARGETS, Settings
from wlmap.operator.core.shared import Shared
from wlmap.schedulers import PROFILES

__all__ = ["POD_GROUP_HANDLER", "mutations", "self_signed", "wanted", "webhook_server"]

# the targets whose pod link only admission can set (a pod field immutable after creation)
FIELD_LINK_TARGETS = frozenset(
    name for name in SYNC_TARGETS if (link := PROFILES[name].link) is not None and not link.writable
)


# kopf serves a handler at /<its id>; the deployed configuration names the same path
POD_GROUP_HANDLER = "pod-group"


def mutations(settings: Settings) -> tuple[str, ...]:
    """The mutations the operator serves, in the order the deployed configuration lists
    their webhooks: the placement gate when placement is on, the pod group when the target
    links pods through a field only admission can set (the Workload API's)."""
    return (("placement-gate",) if settings.placement else ()) + (
        (POD_GROUP_HANDLER,) if settings.target in FIELD_LINK_TARGETS else ()
    )


def wanted(settings: Settings) -> bool:
    """Whether the operator serves a webhook: it has at least one mutation to serve."""
    return bool(mutations(settings))


def webhook_server(shared: Shared, folder: Path | None = None) -> kopf.WebhookServer:
    """kopf's webhook server on the configured port, with a self-signed certificate for
    the configured host (kopf's own generator needs packages not installed here); it sets
    ``shared.webhook_serving`` once it listens."""
    host, port = shared.settings.webhook_address
    where = Path(folder or tempfile.mkdtemp(prefix="wlmap-webhook-"))
    cert, key = where / "tls.crt", where / "tls.key"
    cert_bytes, key_bytes = self_signed(host)
    cert.write_bytes(cert_bytes)
    key.write_bytes(key_bytes)
    return _Serving(
        shared.webhook_serving,
        addr="0.0.0.0",
        port=port,
        host=host,
        certfile=str(cert),
        pkeyfile=str(key),
    )


class _Serving(kopf.WebhookServer):
    """kopf's webhook server, setting ``serving`` once it listens: a pod created before
    then is not mutated (every mutation fails open), so what makes replacements at start
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
    from cryptography import x509  # noqa: PLC0415 - only with a webhook
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
