"""What the exporter reads of one pod: the GPU share of each container, when the pod held
its devices, and what it takes from its node.

GPU shares, per container, as dcgm-exporter labels its GPU series (``namespace``, ``pod``,
``container``):

- ``<domain>/gpu`` resources (the larger of request and limit, which the API server keeps
  equal for extended resources) count as whole GPUs;
- ``nvidia.com/mig-<profile>`` resources count as their share of a GPU: the profile's
  compute slices out of seven (``1g.10gb`` is 1/7, ``3g.40gb`` 3/7), the slices an A100,
  H100, H200 or B200 has;
- the ``gpu-fraction`` annotation (KAI Scheduler, Run:ai) is the pod's share, given to its
  first container, which is the one the scheduler's device plugin hands the share to.

A pod holds its devices from the moment it is bound and started (``spec.nodeName`` set and
``status.startTime`` written by the kubelet) until it ends: a pod in phase ``Succeeded`` or
``Failed`` ended when its last container finished (the latest ``finishedAt``; else the
latest condition change; else it is counted as ending when it started), and a pod still
running holds them until it is deleted.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Any

from wlmap.errors import WlmapError
from wlmap.quantity import parse_quantity
from wlmap.workload import pod_resources
from wlmap.workload.gpus import gpu_fraction, is_gpu_resource, mig_profile

__all__ = ["FINISHED", "MIG_SLICES", "PodFacts", "mig_share", "pod_facts", "timestamp"]

FINISHED = frozenset({"Succeeded", "Failed"})
MIG_SLICES = 7
"""Compute slices of a whole GPU that MIG profiles are counted against."""

_PROFILE = re.compile(r"(?:\d+c\.)?(?P<slices>\d+)g\.\d+gb.*")


@dataclass(frozen=True, slots=True)
class PodFacts:
    """One pod as the exporter counts it.

    Attributes:
        namespace, name: the pod.
        containers: ``(container, GPU share)`` of every app container, in spec order.
        gpus: the pod's GPU share (the containers' shares summed).
        devices: the pod's GPU shares as the node holds them, one per GPU it touches, in
            thousandths (1000 for a whole GPU).
        cpu_milli: the pod's effective CPU request, in millicores.
        node: the node it is bound to, or None.
        start: unix time it began to hold its devices, or None while it holds none.
        end: unix time it stopped holding them, or None while it still does.
        ready: whether its Ready condition is True.
        bound: whether it is bound to a node (``spec.nodeName`` set).
        waiting_since: while it is not bound, unix time it began to wait (its
            ``PodScheduled`` condition's last change, else its creation), else None.
        waiting_reason: while it is not bound, the scheduler's reason (``Unschedulable``,
            ``SchedulingGated``), or None when it gave none.
    """

    namespace: str
    name: str
    containers: tuple[tuple[str, float], ...]
    gpus: float
    devices: tuple[int, ...]
    cpu_milli: int
    node: str | None
    start: float | None
    end: float | None
    ready: bool
    bound: bool
    waiting_since: float | None = None
    waiting_reason: str | None = None

    @property
    def holds_node(self) -> bool:
        """Whether the pod takes room on its node now (bound and not finished)."""
        return self.node is not None and self.end is None


def mig_share(profile: str) -> float:
    """A MIG profile's share of a whole GPU (compute slices over seven; 1/7 when the
    profile names no slices, as a DRA device class does not)."""
    match = _PROFILE.fullmatch(profile)
    return (int(match["slices"]) if match else 1) / MIG_SLICES


def timestamp(value: object) -> float | None:
    """Unix time of an RFC 3339 timestamp as the API server writes it, or None."""
    if not isinstance(value, str) or not value:
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


def _container_share(container: Mapping[str, Any]) -> tuple[float, list[int]]:
    resources = container.get("resources") or {}
    amounts: dict[str, Decimal] = {}
    for part in ("requests", "limits"):
        for resource, value in (resources.get(part) or {}).items():
            try:
                amount = parse_quantity(value)
            except WlmapError:
                continue
            amounts[resource] = max(amounts.get(resource, Decimal(0)), amount)
    share, devices = 0.0, []
    for resource, amount in amounts.items():
        if is_gpu_resource(resource):
            share += float(amount)
            devices += [1000] * int(amount)
        elif (profile := mig_profile(resource)) is not None:
            each = mig_share(profile)
            share += each * float(amount)
            devices += [round(each * 1000)] * int(amount)
    return share, devices


def _end(status: Mapping[str, Any], start: float | None) -> float | None:
    if status.get("phase") not in FINISHED:
        return None
    finished = [
        timestamp(((s.get("state") or {}).get("terminated") or {}).get("finishedAt"))
        for s in status.get("containerStatuses") or ()
        if isinstance(s, Mapping)
    ]
    if not any(finished):
        finished = [
            timestamp(c.get("lastTransitionTime"))
            for c in status.get("conditions") or ()
            if isinstance(c, Mapping)
        ]
    known = [t for t in finished if t is not None]
    if known:
        return max(known) if start is None else max(start, *known)
    return start if start is not None else 0.0


def pod_facts(pod: Mapping[str, Any]) -> PodFacts:
    """The facts of one pod object (never raises: a value it cannot read counts as absent)."""
    metadata = pod.get("metadata") or {}
    spec = pod.get("spec") or {}
    status = pod.get("status") or {}
    containers: list[tuple[str, float]] = []
    devices: list[int] = []
    for container in spec.get("containers") or ():
        if not isinstance(container, Mapping):
            continue
        share, held = _container_share(container)
        containers.append((str(container.get("name", "")), share))
        devices += held
    try:
        fraction = gpu_fraction(metadata).gpus
    except WlmapError:
        fraction = Decimal(0)
    if fraction and containers:
        name, share = containers[0]
        containers[0] = (name, share + float(fraction))
        count = max(1, int(gpu_fraction(metadata).devices))
        devices += [round(float(fraction) / count * 1000)] * count
    try:
        cpu = pod_resources(spec, metadata).requests.get("cpu", Decimal(0))
    except WlmapError:
        cpu = Decimal(0)
    node = spec.get("nodeName") if isinstance(spec.get("nodeName"), str) else None
    start = timestamp(status.get("startTime")) if node else None
    conditions = [c for c in status.get("conditions") or () if isinstance(c, Mapping)]
    ready = any(c.get("type") == "Ready" and c.get("status") == "True" for c in conditions)
    since: float | None = None
    reason: str | None = None
    if node is None:
        scheduled = next((c for c in conditions if c.get("type") == "PodScheduled"), {})
        since = timestamp(scheduled.get("lastTransitionTime")) or timestamp(
            metadata.get("creationTimestamp")
        )
        reason = scheduled.get("reason") if isinstance(scheduled.get("reason"), str) else None
        if reason is None and spec.get("schedulingGates"):
            reason = "SchedulingGated"
    return PodFacts(
        namespace=str(metadata.get("namespace") or ""),
        name=str(metadata.get("name") or ""),
        containers=tuple(containers),
        gpus=sum(share for _, share in containers),
        devices=tuple(devices),
        cpu_milli=int(cpu * 1000),
        node=node,
        start=start,
        end=_end(status, start) if start is not None or node else None,
        ready=ready,
        bound=node is not None,
        waiting_since=since,
        waiting_reason=reason,
    )
