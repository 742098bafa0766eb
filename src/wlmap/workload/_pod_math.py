"""Arithmetic over resource lists: container aggregation, the pod formula, merging counts.

See :mod:`wlmap.workload.resources` for the rules these functions implement.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from decimal import Decimal
from typing import Any

from wlmap.errors import WorkloadShapeError
from wlmap.quantity import parse_quantity

Amounts = dict[str, Decimal]
# Every container consumes these, so one container without a limit leaves the pod
# unbounded; CPU and memory are always listed in limits.
_UNBOUNDED_WITHOUT_LIMIT = ("cpu", "memory", "ephemeral-storage")
_ALWAYS_USED = ("cpu", "memory")


def merge_counts(*counts: Mapping[str, int]) -> dict[str, int]:
    """Add integer counts key by key."""
    merged: dict[str, int] = {}
    for mapping in counts:
        for key, value in mapping.items():
            merged[key] = merged.get(key, 0) + value
    return merged


def union(*groups: Iterable[str]) -> tuple[str, ...]:
    """Names of all groups, first occurrence first, without repeats."""
    return tuple(dict.fromkeys(name for group in groups for name in group))


def sum_amounts(*amounts: Mapping[str, Decimal]) -> Amounts:
    """Add resource lists key by key."""
    result: Amounts = {}
    for mapping in amounts:
        for key, value in mapping.items():
            result[key] = result.get(key, Decimal(0)) + value
    return result


def max_amounts(left: Mapping[str, Decimal], right: Mapping[str, Decimal]) -> Amounts:
    """The larger amount of each resource named by either list."""
    result = dict(left)
    for key, value in right.items():
        result[key] = max(result.get(key, value), value)
    return result


def _amounts(value: Any, where: str) -> Amounts:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise WorkloadShapeError(
            f"{where} must be a mapping of resource names to quantities, got {value!r}"
        )
    return {str(k): parse_quantity(v, f"{where}.{k}") for k, v in value.items()}


def _containers(spec: Mapping[str, Any], key: str, where: str) -> list[Mapping[str, Any]]:
    containers = spec.get(key) or []
    if not isinstance(containers, list) or not all(isinstance(c, Mapping) for c in containers):
        raise WorkloadShapeError(f"{where}.{key} must be a list of containers")
    return containers


def _container_aggregates(
    spec: Mapping[str, Any], where: str
) -> tuple[Amounts, Amounts, set[str], set[str]]:
    """Aggregate the ``requests`` and the ``limits`` of every container, in one pass.

    For requests a container's limit stands in for its missing request. Returns both
    aggregates, the resources some container names, and the shared resources (CPU,
    memory, ephemeral storage) some container leaves without a limit.
    """
    named: set[str] = set()
    unlimited: set[str] = set()
    # per field: (running sidecars, peak of the init phase, app containers)
    asked: tuple[Amounts, Amounts, Amounts] = ({}, {}, {})
    capped: tuple[Amounts, Amounts, Amounts] = ({}, {}, {})
    for key in ("initContainers", "containers"):
        for index, container in enumerate(_containers(spec, key, where)):
            at = f"{where}.{key}[{index}].resources"
            resources = container.get("resources") or {}
            if not isinstance(resources, Mapping):
                raise WorkloadShapeError(f"{at} must be a mapping, got {resources!r}")
            limits = _amounts(resources.get("limits"), f"{at}.limits")
            requests = _amounts(resources.get("requests"), f"{at}.requests")
            named.update(limits, requests)
            unlimited.update(r for r in _UNBOUNDED_WITHOUT_LIMIT if r not in limits)
            stage = (
                2 if key == "containers" else 0 if container.get("restartPolicy") == "Always" else 1
            )
            asked = _step(asked, {**limits, **requests}, stage)
            capped = _step(capped, limits, stage)
    return _pod_aggregate(asked), _pod_aggregate(capped), named, unlimited


def _step(
    state: tuple[Amounts, Amounts, Amounts], amounts: Amounts, stage: int
) -> tuple[Amounts, Amounts, Amounts]:
    """Add one container to (running sidecars, init peak, app containers): an app
    container (stage 2), a sidecar (0) or a plain init container (1)."""
    sidecars, init_peak, app = state
    if stage == 2:
        return sidecars, init_peak, sum_amounts(app, amounts)
    if stage == 0:
        sidecars = sum_amounts(sidecars, amounts)
        return sidecars, max_amounts(init_peak, sidecars), app
    return sidecars, max_amounts(init_peak, sum_amounts(amounts, sidecars)), app


def _pod_aggregate(state: tuple[Amounts, Amounts, Amounts]) -> Amounts:
    sidecars, init_peak, app = state
    return max_amounts(init_peak, sum_amounts(app, sidecars))


def effective(spec: Mapping[str, Any], where: str) -> tuple[Amounts, dict[str, Decimal | None]]:
    """Effective requests and limits of a pod spec, before any GPU interpretation."""
    requests, limit_sum, named, unbounded = _container_aggregates(spec, where)
    pod_level = spec.get("resources") or {}
    if not isinstance(pod_level, Mapping):
        raise WorkloadShapeError(f"{where}.resources must be a mapping, got {pod_level!r}")
    pod_requests = _amounts(pod_level.get("requests"), f"{where}.resources.requests")
    pod_limits = _amounts(pod_level.get("limits"), f"{where}.resources.limits")
    overhead = _amounts(spec.get("overhead"), f"{where}.overhead")

    # A pod-level limit stands in for a pod-level request only when no container asks
    # for the resource, mirroring the container rule.
    requests.update({r: v for r, v in pod_limits.items() if r not in requests})
    requests.update(pod_requests)
    requests = sum_amounts(requests, overhead)

    limits: dict[str, Decimal | None] = {}
    for resource in sorted(set(_ALWAYS_USED) | named | set(pod_limits)):
        if resource in pod_limits:
            limits[resource] = pod_limits[resource]
        elif resource in unbounded or (resource in _ALWAYS_USED and resource not in limit_sum):
            limits[resource] = None
        else:
            limits[resource] = limit_sum.get(resource, Decimal(0))
        value = limits[resource]
        if value is not None and resource in overhead:
            limits[resource] = value + overhead[resource]
    return requests, limits
