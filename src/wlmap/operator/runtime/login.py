"""The operator's credentials for kopf: the pod's service account, or a kubeconfig with the
context the settings name (kopf's own kubeconfig login only knows the current context)."""

from __future__ import annotations

import base64
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import kopf
import yaml

from wlmap.operator.core.settings import Settings


def login(wanted: Settings, /, **kwargs: Any) -> kopf.ConnectionInfo | None:
    """Credentials: in-cluster first, then the configured kubeconfig and context.

    ``kwargs`` are what kopf passes to login handlers (its own settings among them).
    """
    found: kopf.ConnectionInfo | None = kopf.login_with_service_account(**kwargs)
    if found is not None:
        return found
    if wanted.context is None:
        return kopf.login_with_kubeconfig(**kwargs)
    return _with_context(wanted.kubeconfig, wanted.context)


def _with_context(kubeconfig: str | None, context: str) -> kopf.ConnectionInfo:
    path = Path(kubeconfig or Path.home() / ".kube" / "config").expanduser()
    config = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    chosen = _named(config.get("contexts"), context, "context", path)
    cluster = _named(config.get("clusters"), chosen.get("cluster"), "cluster", path)
    user = _named(config.get("users"), chosen.get("user"), "user", path)

    def file(value: Any) -> str | None:
        return str(path.parent / value) if value else None

    def data(value: Any) -> bytes | None:
        return base64.b64decode(value) if value else None

    token = user.get("token")
    if not token and user.get("tokenFile"):
        token = Path(file(user["tokenFile"]) or "").read_text(encoding="utf-8").strip()
    return kopf.ConnectionInfo(
        server=str(cluster.get("server")),
        ca_path=file(cluster.get("certificate-authority")),
        ca_data=data(cluster.get("certificate-authority-data")),
        insecure=bool(cluster.get("insecure-skip-tls-verify")),
        token=token,
        certificate_path=file(user.get("client-certificate")),
        certificate_data=data(user.get("client-certificate-data")),
        private_key_path=file(user.get("client-key")),
        private_key_data=data(user.get("client-key-data")),
        default_namespace=chosen.get("namespace"),
    )


def _named(items: Any, name: Any, what: str, path: Path) -> Mapping[str, Any]:
    for item in items or ():
        if isinstance(item, Mapping) and item.get("name") == name:
            body = item.get(what)
            return body if isinstance(body, Mapping) else {}
    raise kopf.LoginError(f"{path}: no {what} named {name!r}")
