"""Pod resource accounting: the effective request of a pod, as the scheduler computes it.

Per resource, the effective request of a pod is::

    max(max over init containers i of (request_i + sidecars started before i),
        sum of app containers + sum of sidecars) + overhead

where sidecars are init containers with ``restartPolicy: Always``; a sidecar's own start
counts as a step of the init phase with the sidecars before it still running. A container
that sets a limit but no request for a resource requests its limit, as the API server
defaults it. Pod-level ``spec.resources`` (KEP-2837) replaces the container aggregate for
each resource it names; overhead (``spec.overhead``) is added on top.

Limits follow the same formula over container limits only. A resource that some
container leaves unlimited has no pod limit and maps to ``None``: as the kubelet does when
sizing the pod cgroup, one container without a CPU or memory limit (or, here, an
ephemeral-storage limit) makes the pod unbounded for that resource, because every
container consumes it. A container that does not name an extended resource uses none of
it. CPU and memory are always present in ``limits``; other resources appear once some
container or the pod names them. Overhead is added to limits that are bounded.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from wlmap.errors import WorkloadShapeError
from wlmap.quantity import quantity_to_number
from wlmap.workload._pod_math import effective, merge_counts, sum_amounts, union
from wlmap.workload.gpus import (
    ClaimDevices,
    GpuFraction,
    claim_devices,
    gpu_fraction,
    is_gpu_resource,
    mig_profile,
)

# A resourceClaims entry may carry the ResourceClaimTemplate itself under this key instead of
# naming one (a wlmap extension): definitions use it for templates an operator generates from
# the workload's spec under a name that cannot be derived (NIMService claimCreationSpec).
INLINE_TEMPLATE = "resourceClaimTemplate"

__all__ = ["PodResources", "pod_resources", "total"]


@dataclass(frozen=True)
class PodResources:
    """What one pod (or, after :meth:`scaled` and :meth:`add`, a group of pods) asks for.

    Attributes:
        requests: effective requests by resource name, in base units (cores, bytes, devices).
        limits: effective limits by resource name; ``None`` where a container is unlimited.
        gpus: whole GPUs (``*/gpu`` resources) plus annotation GPU shares plus DRA GPUs
            from per-pod claims. Shared claims are not included; see :attr:`total_gpus`.
        gpu_fraction: GPU sharing asked for by annotation.
        mig: MIG devices, by profile for ``nvidia.com/mig-<profile>`` resources and by
            device class name for DRA requests; never part of ``gpus``.
        dra_gpus: the part of ``gpus`` that comes from per-pod DRA claims.
        dra_all_requests: ``<claim>/<request>`` of DRA GPU or MIG requests with
            ``allocationMode: All``, whose device count is unknown until allocation.
        unresolved_claims: names of the ResourceClaims and ResourceClaimTemplates the pod
            references but that were not provided, so their devices are not counted.
        shared_claims: devices of ResourceClaims referenced by name
            (``resourceClaimName``). Every pod of a workload shares them, so they are kept
            out of the per-pod counts and are not multiplied by :meth:`scaled`. A shared
            claim that was not provided maps to empty devices and is also unresolved.
    """

    requests: Mapping[str, Decimal] = field(default_factory=dict)
    limits: Mapping[str, Decimal | None] = field(default_factory=dict)
    gpus: Decimal = Decimal(0)
    gpu_fraction: GpuFraction = field(default_factory=GpuFraction)
    mig: Mapping[str, int] = field(default_factory=dict)
    dra_gpus: int = 0
    dra_all_requests: tuple[str, ...] = ()
    unresolved_claims: tuple[str, ...] = ()
    shared_claims: Mapping[str, ClaimDevices] = field(default_factory=dict)

    @property
    def total_gpus(self) -> Decimal:
        """GPUs including those of shared claims, each shared claim counted once."""
        return self.gpus + sum((c.gpus for c in self.shared_claims.values()), Decimal(0))

    def scaled(self, pods: int) -> PodResources:
        """Resources of ``pods`` identical pods; shared claims and names stay as they are.

        Raises:
            ValueError: ``pods`` is negative.
        """
        if pods < 0:
            raise ValueError(f"pod count must not be negative, got {pods}")
        return PodResources(
            requests={k: v * pods for k, v in self.requests.items()},
            limits={k: None if v is None else v * pods for k, v in self.limits.items()},
            gpus=self.gpus * pods,
            gpu_fraction=self.gpu_fraction.scaled(pods),
            mig={k: v * pods for k, v in self.mig.items()},
            dra_gpus=self.dra_gpus * pods,
            dra_all_requests=self.dra_all_requests,
            unresolved_claims=self.unresolved_claims,
            shared_claims=dict(self.shared_claims),
        )

    def add(self, other: PodResources) -> PodResources:
        """Resources of both groups of pods.

        A limit is ``None`` when either side is unbounded; a resource that one side does
        not name at all is taken from the other side. Shared claims are merged by name.
        """
        limits: dict[str, Decimal | None] = dict(self.limits)
        for key, value in other.limits.items():
            if key not in limits:
                limits[key] = value
            else:
                mine = limits[key]
                limits[key] = None if mine is None or value is None else mine + value
        return PodResources(
            requests=sum_amounts(self.requests, other.requests),
            limits=limits,
            gpus=self.gpus + other.gpus,
            gpu_fraction=self.gpu_fraction.add(other.gpu_fraction),
            mig=merge_counts(self.mig, other.mig),
            dra_gpus=self.dra_gpus + other.dra_gpus,
            dra_all_requests=union(self.dra_all_requests, other.dra_all_requests),
            unresolved_claims=union(self.unresolved_claims, other.unresolved_claims),
            shared_claims={**other.shared_claims, **self.shared_claims},
        )

    def to_dict(self) -> dict[str, Any]:
        """JSON-friendly form: CPU in cores, byte resources in bytes, other resources and
        GPUs as ``int`` when whole and ``float`` otherwise; unbounded limits as ``None``."""
        return {
            "requests": {k: quantity_to_number(k, v) for k, v in self.requests.items()},
            "limits": {
                k: None if v is None else quantity_to_number(k, v) for k, v in self.limits.items()
            },
            "gpus": quantity_to_number("gpus", self.gpus),
            "totalGpus": quantity_to_number("gpus", self.total_gpus),
            "gpuFraction": {
                "gpus": quantity_to_number("gpus", self.gpu_fraction.gpus),
                "devices": self.gpu_fraction.devices,
                "memoryMiB": self.gpu_fraction.memory_mib,
            },
            "mig": dict(self.mig),
            "draGpus": self.dra_gpus,
            "draAllRequests": list(self.dra_all_requests),
            "unresolvedClaims": list(self.unresolved_claims),
            "sharedClaims": {
                name: {"gpus": c.gpus, "mig": dict(c.mig), "allRequests": list(c.all_requests)}
                for name, c in self.shared_claims.items()
            },
        }


def total(resources: Iterable[PodResources]) -> PodResources:
    """Sum the resources of several groups of pods (e.g. each component times its replicas)."""
    result = PodResources()
    for item in resources:
        result = result.add(item)
    return result


# More devices than one pod can ask for: a request beyond it (or below zero) is a
# mistake, or hostile, and would corrupt every total it is multiplied into.
MAX_DEVICES = 1_000_000


def _whole(value: Decimal, what: str, where: str) -> int:
    if value != int(value):
        raise WorkloadShapeError(f"{what} {value} at {where} is not a whole number of devices")
    return int(_devices(value, what, where))


def _devices(value: Decimal, what: str, where: str) -> Decimal:
    if not 0 <= value <= MAX_DEVICES:
        raise WorkloadShapeError(
            f"{what} {value} at {where} must be from 0 to {MAX_DEVICES:,} devices"
        )
    return value


def pod_resources(
    pod_spec: Mapping[str, Any],
    metadata: Mapping[str, Any] | None = None,
    claims: Mapping[str, Mapping[str, Any]] | None = None,
    *,
    where: str = "spec",
) -> PodResources:
    """Compute what one pod asks for (see the module docstring for the rules).

    Args:
        pod_spec: a pod spec (``spec`` of a Pod, ``spec.template.spec`` of a controller).
        metadata: the pod (template) metadata, read for GPU sharing annotations.
        claims: ResourceClaim and ResourceClaimTemplate objects by name. Each
            ``spec.resourceClaims`` entry is looked up by its ``resourceClaimName`` or
            ``resourceClaimTemplateName``; every listed claim is counted, since the
            scheduler allocates all of them whether or not a container references them.
            An entry naming neither but carrying a ``resourceClaimTemplate`` object is
            counted from that object, once per pod.
        where: field path of ``pod_spec``, used in error messages.

    Raises:
        WorkloadShapeError: a quantity is invalid or a field has the wrong shape; the
            message names the value and its field path.
    """
    requests, limits = effective(pod_spec, where)
    gpus = Decimal(0)
    mig: dict[str, int] = {}
    for resource, value in requests.items():
        profile = mig_profile(resource)
        if profile is not None:
            mig[profile] = mig.get(profile, 0) + _whole(value, resource, where)
        elif is_gpu_resource(resource):
            gpus += _devices(value, resource, where)
    sharing = gpu_fraction(metadata)

    per_pod = ClaimDevices()
    unresolved: list[str] = []
    shared: dict[str, ClaimDevices] = {}
    entries = pod_spec.get("resourceClaims") or []
    if not isinstance(entries, list):
        raise WorkloadShapeError(f"{where}.resourceClaims must be a list, got {entries!r}")
    for index, entry in enumerate(entries):
        source = (entry.get("source") or entry) if isinstance(entry, Mapping) else {}
        claim_name = source.get("resourceClaimName")
        template_name = source.get("resourceClaimTemplateName")
        inline = source.get(INLINE_TEMPLATE)
        name = claim_name or template_name
        if not name and isinstance(inline, Mapping):
            # A template the workload's operator creates itself, described in place.
            label = str(entry.get("name") or f"resourceClaims[{index}]")
            per_pod = per_pod.add(claim_devices(inline, label))
            continue
        if not isinstance(name, str) or not name:
            raise WorkloadShapeError(
                f"{where}.resourceClaims[{index}] must name a resourceClaimName or a "
                f"resourceClaimTemplateName, or carry a {INLINE_TEMPLATE}, got {entry!r}"
            )
        found = (claims or {}).get(name)
        devices = ClaimDevices() if found is None else claim_devices(found, name)
        if found is None:
            unresolved.append(name)
        if claim_name:
            shared[name] = devices
        else:
            per_pod = per_pod.add(devices)

    return PodResources(
        requests=requests,
        limits=limits,
        gpus=gpus + sharing.gpus + per_pod.gpus,
        gpu_fraction=sharing,
        mig=merge_counts(mig, per_pod.mig),
        dra_gpus=per_pod.gpus,
        dra_all_requests=per_pod.all_requests,
        unresolved_claims=union(unresolved),
        shared_claims=shared,
    )
