"""The operator's deployment files: RBAC, the admission policy, the webhook and the
bundle that writes them (``python -m wlmap.operator.deploy DIR``)."""

from __future__ import annotations

from wlmap.operator.deploy.admission import policy_manifests
from wlmap.operator.deploy.bundle import main, render
from wlmap.operator.deploy.rbac import manifests
from wlmap.operator.deploy.webhooks import inject_ca, webhook_manifests

__all__ = ["inject_ca", "main", "manifests", "policy_manifests", "render", "webhook_manifests"]
