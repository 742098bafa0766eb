"""What the operator tells users when it cannot keep a workload's gang: a log line, a
Kubernetes Event on the workload, and a ``Degraded`` condition on the definition object
whose evaluation failed.

A workload is reconciled on every change of it and of its pods, so the same refusal would
be reported again and again: each is reported once, when it first appears or its message
changes, and forgotten when the workload reconciles cleanly.
"""

from __future__ import annotations

import logging
import os
import secrets
import socket
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from wlmap.operator.core.conditions import DEGRADED, degraded_condition
from wlmap.sources.cluster import ApiError, Cluster, Discovery
from wlmap.sources.cluster.connection import MERGE_PATCH
from wlmap.sources.cluster.definitions import DEFINITION_TYPES, is_from_cluster

log = logging.getLogger("wlmap.operator")
COMPONENT = "wlmap-operator"


@dataclass(frozen=True)
class Refusal:
    """Why a workload's gang objects were not (all) written.

    Attributes:
        reason: a CamelCase word (the Event's reason): ``EvaluationFailed``, ``NameTaken``,
            ``ApplyRefused``.
        message: what is wrong and where (the definition and its failing path, or the
            server's own message).
    """

    reason: str
    message: str


@dataclass
class Reports:
    """Refusals already reported per workload uid, failing workloads per definition, and
    why each quarantined definition is."""

    reported: dict[str, set[Refusal]] = field(default_factory=dict)
    failing: dict[str, dict[str, str]] = field(default_factory=dict)
    checked: set[str] = field(default_factory=set)
    quarantined: dict[str, str] = field(default_factory=dict)

    def new(self, uid: str, refusals: tuple[Refusal, ...]) -> list[Refusal]:
        """The refusals of a reconciliation not reported yet for this workload."""
        before = self.reported.get(uid, set())
        if refusals:
            self.reported[uid] = set(refusals)
        else:
            self.reported.pop(uid, None)
        return [r for r in refusals if r not in before]

    def failures(self, origin: str) -> dict[str, str] | None:
        """The failing workloads of a definition; None when none was evaluated yet."""
        return self.failing.get(origin) if origin in self.checked else None

    def evaluated(self, origin: str, uid: str, failure: str | None) -> bool:
        """Record whether a workload's evaluation under a definition failed; True when the
        definition's condition changes (or is first met since start: a condition left by
        an earlier run may be out of date)."""
        failing = self.failing.setdefault(origin, {})
        first = origin not in self.checked
        self.checked.add(origin)
        before = failing.get(uid)
        if failure is None:
            failing.pop(uid, None)
        else:
            failing[uid] = failure
        return first or before != failure


async def post_event(
    cluster: Cluster, workload: Mapping[str, Any], refusal: Refusal, kind: str = "Warning"
) -> None:
    """A core/v1 Event about a workload (what ``kubectl describe`` and ``kubectl get
    events`` show). Best effort: a refused Event is logged, never retried."""
    meta = workload.get("metadata") or {}
    namespace = meta.get("namespace") or "default"
    now = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    event = {
        "apiVersion": "v1",
        "kind": "Event",
        "metadata": {"name": f"{meta.get('name')}.{secrets.token_hex(8)}", "namespace": namespace},
        "involvedObject": {
            "apiVersion": workload.get("apiVersion"),
            "kind": workload.get("kind"),
            "name": meta.get("name"),
            "namespace": meta.get("namespace"),
            "uid": meta.get("uid"),
        },
        "reason": refusal.reason,
        "message": refusal.message[:1024],
        "type": kind,
        "source": {"component": COMPONENT},
        "reportingComponent": COMPONENT,
        "reportingInstance": f"{socket.gethostname()}-{os.getpid()}",
        "firstTimestamp": now,
        "lastTimestamp": now,
        "count": 1,
    }
    try:
        await cluster.request("POST", f"/api/v1/namespaces/{namespace}/events", body=event)
    except ApiError as exc:
        log.warning("event not recorded: %s", exc)


async def set_degraded(
    cluster: Cluster,
    discovery: Discovery,
    origin: str,
    failures: Mapping[str, str],
    quarantine: str | None = None,
) -> None:
    """Set (or clear, when nothing fails) the ``Degraded`` condition of a definition object
    (reason ``Quarantined`` while ``quarantine`` says why it is). Built-in definitions
    have no object: their failures are only logged and evented."""
    if not is_from_cluster(origin):
        return
    kind, _, name = origin.partition(":")[2].partition("/")
    group = next((g for g, k in DEFINITION_TYPES if k == kind), None)
    resource = discovery.find(group, kind) if group is not None else None
    if resource is None:
        return
    path = resource.path(None, name)
    try:
        current = await cluster.request("GET", path)
    except ApiError as exc:
        if exc.code == 404:
            return
        raise
    previous = (current.get("status") or {}).get("conditions") or []
    degraded = degraded_condition(previous, failures, quarantine)
    kept = [c for c in previous if c.get("type") != DEGRADED]
    body = {"status": {"conditions": [*kept, degraded]}}
    await cluster.request("PATCH", path + "/status", body=body, content_type=MERGE_PATCH)


def log_name(obj: Mapping[str, Any]) -> str:
    """``Kind/namespace/name``: how log lines name a workload or a gang object."""
    meta = obj.get("metadata") or {}
    return f"{obj.get('kind')}/{meta.get('namespace')}/{meta.get('name')}"
