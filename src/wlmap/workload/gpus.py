"""What counts as a GPU: extended resource names, sharing annotations and DRA claims.

Rules, kept deliberately simple so a reader can predict them:

- Whole GPUs are extended resources whose name part after ``/`` is exactly ``gpu``
  (``nvidia.com/gpu``, ``amd.com/gpu``). Other device names (``gpu.intel.com/i915``,
  ``habana.ai/gaudi``) and HAMi's ``nvidia.com/gpumem`` / ``nvidia.com/gpucores`` stay
  plain resources.
- ``nvidia.com/mig-<profile>`` resources are MIG devices, counted per profile and never
  added to whole GPUs.
- The KAI Scheduler / Run:ai pod annotations ``gpu-fraction`` (with optional
  ``gpu-fraction-num-devices``) ask for a share of GPUs; ``gpu-memory`` asks for an
  amount of GPU memory in MiB, which is reported as such and not turned into a GPU count.
- A DRA request is a MIG request when a dot-separated label of its device class name is
  ``mig`` or starts with ``mig-`` (``mig.nvidia.com``, ``mig-1g-12gb.gpu.nvidia.com``), and
  otherwise a GPU request when the class name contains ``gpu`` (``gpu.nvidia.com``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from wlmap.errors import WorkloadShapeError
from wlmap.quantity import parse_quantity
from wlmap.workload._pod_math import merge_counts, union

__all__ = [
    "ClaimDevices",
    "GpuFraction",
    "claim_devices",
    "gpu_fraction",
    "is_gpu_resource",
    "mig_profile",
]

_MIG = re.compile(r"nvidia\.com/mig-(?P<profile>.+)")

FRACTION_ANNOTATION = "gpu-fraction"
FRACTION_DEVICES_ANNOTATION = "gpu-fraction-num-devices"
MEMORY_ANNOTATION = "gpu-memory"


def is_gpu_resource(resource: str) -> bool:
    """Whether an extended resource name counts whole GPUs (``<domain>/gpu``)."""
    domain, slash, name = resource.partition("/")
    return bool(domain) and bool(slash) and name == "gpu"


def mig_profile(resource: str) -> str | None:
    """The MIG profile of an ``nvidia.com/mig-<profile>`` resource, else ``None``."""
    match = _MIG.fullmatch(resource)
    return match["profile"] if match else None


@dataclass(frozen=True)
class GpuFraction:
    """GPU sharing asked for by pod annotation (KAI Scheduler, Run:ai).

    Attributes:
        gpus: GPU share, ``gpu-fraction`` times the number of devices; also counted in
            ``PodResources.gpus``.
        devices: number of GPUs the share is spread over.
        memory_mib: GPU memory asked for with ``gpu-memory``, in MiB, per device times
            devices; not converted to a GPU count because the GPU size is unknown here.
    """

    gpus: Decimal = Decimal(0)
    devices: int = 0
    memory_mib: int = 0

    def add(self, other: GpuFraction) -> GpuFraction:
        """Sum of two shares."""
        return GpuFraction(
            self.gpus + other.gpus, self.devices + other.devices, self.memory_mib + other.memory_mib
        )

    def scaled(self, factor: int) -> GpuFraction:
        """This share for ``factor`` pods."""
        return GpuFraction(self.gpus * factor, self.devices * factor, self.memory_mib * factor)


@dataclass(frozen=True)
class ClaimDevices:
    """GPU devices one DRA ResourceClaim (or claim made from a template) asks for.

    Attributes:
        gpus: GPUs from ``ExactCount`` requests.
        mig: MIG devices from ``ExactCount`` requests, by device class name (the profile
            is chosen by a CEL selector, which is not evaluated here).
        all_requests: ``<claim>/<request>`` of GPU or MIG requests with
            ``allocationMode: All``, whose count is only known once allocated.
    """

    gpus: int = 0
    mig: Mapping[str, int] = field(default_factory=dict)
    all_requests: tuple[str, ...] = ()

    def add(self, other: ClaimDevices) -> ClaimDevices:
        """Devices of two claims together."""
        return ClaimDevices(
            self.gpus + other.gpus,
            merge_counts(self.mig, other.mig),
            union(self.all_requests, other.all_requests),
        )


def _annotation_number(annotations: Mapping[str, Any], key: str) -> Decimal | None:
    if key not in annotations:
        return None
    where = f"metadata.annotations.{key}"
    value = parse_quantity(annotations[key], where)
    if value <= 0:
        raise WorkloadShapeError(
            f"invalid {key} annotation {annotations[key]!r} at {where}: expected a positive number"
        )
    return value


def gpu_fraction(metadata: Mapping[str, Any] | None) -> GpuFraction:
    """Read the GPU sharing annotations of a pod (template) metadata.

    Raises:
        WorkloadShapeError: an annotation is not a positive number, a fraction is above 1,
            or a device count or memory amount is not whole.
    """
    annotations = (metadata or {}).get("annotations") or {}
    fraction = _annotation_number(annotations, FRACTION_ANNOTATION)
    memory = _annotation_number(annotations, MEMORY_ANNOTATION)
    if fraction is None and memory is None:
        return GpuFraction()
    devices = _annotation_number(annotations, FRACTION_DEVICES_ANNOTATION) or Decimal(1)
    problems = []
    if fraction is not None and fraction > 1:
        problems.append(f"{FRACTION_ANNOTATION} {annotations[FRACTION_ANNOTATION]!r} is above 1")
    if devices != int(devices):
        problems.append(f"{FRACTION_DEVICES_ANNOTATION} {devices} is not a whole number")
    if memory is not None and memory != int(memory):
        problems.append(f"{MEMORY_ANNOTATION} {memory} is not a whole number of MiB")
    if problems:
        raise WorkloadShapeError(
            "invalid GPU sharing annotations at metadata.annotations: " + "; ".join(problems)
        )
    count = int(devices)
    return GpuFraction(
        gpus=(fraction or Decimal(0)) * count,
        devices=count,
        memory_mib=int(memory or 0) * count,
    )


def _is_mig_class(device_class: str) -> bool:
    return any(label == "mig" or label.startswith("mig-") for label in device_class.split("."))


def claim_devices(claim: Mapping[str, Any], name: str) -> ClaimDevices:
    """Count the GPU and MIG devices a ResourceClaim or ResourceClaimTemplate asks for.

    Reads ``spec.devices.requests`` (``spec.spec.devices.requests`` for a template) in
    both the ``resource.k8s.io/v1`` shape (``exactly`` or ``firstAvailable``) and the
    v1beta1 shape (``deviceClassName``, ``count``, ``allocationMode`` on the request). For
    ``firstAvailable`` the first, preferred, alternative is counted.

    Args:
        claim: the claim or claim template object.
        name: its name, used in ``all_requests`` and in error messages.

    Raises:
        WorkloadShapeError: the requests are not a list of mappings, or a count is not a
            positive whole number.
    """
    spec = claim.get("spec") or {}
    is_template = claim.get("kind") == "ResourceClaimTemplate" or "spec" in spec
    if is_template:
        spec = spec.get("spec") or {}
    where = f"claims[{name!r}].{'spec.spec' if is_template else 'spec'}.devices.requests"
    requests = (spec.get("devices") or {}).get("requests") or []
    if not isinstance(requests, list):
        raise WorkloadShapeError(f"{where} must be a list, got {type(requests).__name__}")
    gpus = 0
    mig: dict[str, int] = {}
    all_requests: list[str] = []
    for index, request in enumerate(requests):
        if not isinstance(request, Mapping):
            raise WorkloadShapeError(f"{where}[{index}] must be a mapping, got {request!r}")
        body, at = request, f"{where}[{index}]"
        if isinstance(request.get("exactly"), Mapping):
            body, at = request["exactly"], f"{at}.exactly"
        elif isinstance(request.get("firstAvailable"), list) and request["firstAvailable"]:
            body, at = request["firstAvailable"][0], f"{at}.firstAvailable[0]"
        if not isinstance(body, Mapping):
            raise WorkloadShapeError(f"{at} must be a mapping, got {body!r}")
        device_class = str(body.get("deviceClassName") or "")
        is_mig = _is_mig_class(device_class)
        if not is_mig and "gpu" not in device_class:
            continue
        if body.get("allocationMode", "ExactCount") == "All":
            all_requests.append(f"{name}/{request.get('name', index)}")
            continue
        count = body.get("count", 1)
        if isinstance(count, bool) or not isinstance(count, int) or count < 1:
            raise WorkloadShapeError(
                f"invalid device count {count!r} at {at}.count: expected a positive whole number"
            )
        if is_mig:
            mig[device_class] = mig.get(device_class, 0) + count
        else:
            gpus += count
    return ClaimDevices(gpus, mig, tuple(all_requests))
