"""Leader election with a ``coordination.k8s.io/v1`` Lease: of several replicas, one writes.

The replicas all watch (so a new leader starts with warm caches), but only the holder of
the Lease reconciles. The holder renews it every ``lease_seconds / 3``; another replica
takes it over once it has not changed for ``lease_seconds`` (time measured on the
candidate's own clock from when it last saw the record change, as client-go does, so the
replicas' clocks need not agree). Every write is a PUT carrying the ``resourceVersion``
read, so two candidates cannot both win. A replica that stops cleanly gives the Lease up.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import os
import secrets
import socket
import time
from collections.abc import Awaitable, Callable, Mapping
from datetime import UTC, datetime
from typing import Any

from wlmap.errors import ClusterError
from wlmap.sources.cluster import ApiError, Cluster

log = logging.getLogger("wlmap.operator")
LEASES = "/apis/coordination.k8s.io/v1/namespaces/{namespace}/leases"


def lease_name(target: str, scope: str) -> str:
    """One Lease per target and served scope: operators serving different namespaces do
    not wait for each other."""
    digest = hashlib.sha256(scope.encode()).hexdigest()[:10]
    return f"wlmap-operator-{target}-{digest}"


class LeaderElection:
    """Holds (or waits for) one Lease; ``leading`` says whether this replica writes."""

    def __init__(
        self,
        cluster: Cluster,
        namespace: str,
        name: str,
        lease_seconds: float,
        on_leading: Callable[[], Awaitable[None]],
    ) -> None:
        self.cluster = cluster
        self.path = LEASES.format(namespace=namespace) + f"/{name}"
        self.collection = LEASES.format(namespace=namespace)
        self.name = name
        self.lease_seconds = lease_seconds
        self.identity = f"{socket.gethostname()}-{os.getpid()}-{secrets.token_hex(3)}"
        self.leading = False
        self._on_leading = on_leading
        self._seen: tuple[Any, float] | None = None  # (record, monotonic time first seen)
        self._renewed = 0.0

    async def run(self) -> None:
        """After a first :meth:`step`: try to acquire or renew for ever, calling
        ``on_leading`` on each acquisition."""
        while True:
            await asyncio.sleep(self.lease_seconds / (3 if self.leading else 5))
            await self.step()

    async def step(self) -> None:
        """One attempt; a leader that cannot renew within the lease stops writing."""
        try:
            held = await self._acquire_or_renew()
        except ClusterError as exc:
            log.warning("leader election: %s", exc)
            held = self.leading and time.monotonic() - self._renewed < self.lease_seconds
        if held:
            self._renewed = time.monotonic()
        if held and not self.leading:
            self.leading = True
            log.info("leading: this replica writes", extra={"lease": self.name})
            await self._on_leading()
        elif not held and self.leading:
            self.leading = False
            log.warning("no longer leading: this replica stops writing", extra={"lease": self.name})

    async def release(self) -> None:
        """Give the Lease up (a clean stop), so that another replica takes over at once."""
        if not self.leading:
            return
        self.leading = False
        try:
            lease = await self.cluster.request("GET", self.path)
            if (lease.get("spec") or {}).get("holderIdentity") == self.identity:
                lease["spec"]["holderIdentity"] = None
                lease["spec"]["leaseDurationSeconds"] = 1
                await self.cluster.request("PUT", self.path, body=lease)
        except ClusterError as exc:
            log.warning("leader election: lease not released: %s", exc)

    async def _acquire_or_renew(self) -> bool:
        try:
            lease = await self.cluster.request("GET", self.path)
        except ApiError as exc:
            if exc.code != 404:
                raise
            return await self._write("POST", self.collection, self._lease(None))
        spec = lease.get("spec") or {}
        now = time.monotonic()
        record = (spec.get("holderIdentity"), spec.get("renewTime"))
        if self._seen is None or self._seen[0] != record:
            self._seen = (record, now)
        holder = spec.get("holderIdentity")
        duration = float(spec.get("leaseDurationSeconds") or self.lease_seconds)
        if holder and holder != self.identity and now - self._seen[1] < duration:
            return False  # held by another replica, which renews it
        return await self._write("PUT", self.path, self._lease(lease))

    async def _write(self, method: str, path: str, lease: Mapping[str, Any]) -> bool:
        try:
            await self.cluster.request(method, path, body=lease)
        except ApiError as exc:
            if exc.code == 409:  # another candidate wrote first
                return False
            raise
        return True

    def _lease(self, current: Mapping[str, Any] | None) -> dict[str, Any]:
        now = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
        spec = dict((current or {}).get("spec") or {})
        if spec.get("holderIdentity") != self.identity:
            spec["acquireTime"] = now
            spec["leaseTransitions"] = int(spec.get("leaseTransitions") or 0) + (
                1 if current else 0
            )
        spec.update(
            holderIdentity=self.identity,
            leaseDurationSeconds=round(self.lease_seconds),
            renewTime=now,
        )
        metadata = dict((current or {}).get("metadata") or {"name": self.name})
        return {
            "apiVersion": "coordination.k8s.io/v1",
            "kind": "Lease",
            "metadata": metadata,
            "spec": spec,
        }
