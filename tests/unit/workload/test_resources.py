"""Pod resource accounting: the scheduler's formula, overhead, pod-level resources, limits, sums."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction
from typing import Any

import pytest

from tests.unit.workload.podfactory import container
from wlmap.errors import WorkloadShapeError
from wlmap.workload.resources import PodResources, pod_resources, total


def sidecar(name: str, requests: Any = None, limits: Any = None) -> dict[str, Any]:
    return container(name, requests, limits, restartPolicy="Always")


def cpu(resources: PodResources) -> Decimal:
    return resources.requests["cpu"]


# --- the scheduler's formula ---------------------------------------------------------------


def test_app_containers_are_summed() -> None:
    spec = {"containers": [container("a", {"cpu": "250m"}), container("b", {"cpu": "1.5"})]}
    assert cpu(pod_resources(spec)) == Fraction(7, 4)  # 0.25 + 1.5


def test_init_containers_take_the_max_not_the_sum() -> None:
    spec = {
        "initContainers": [
            container("migrate", {"cpu": "2", "memory": "1Gi"}),
            container("warm", {"cpu": "1", "memory": "2Gi"}),
        ],
        "containers": [
            container("a", {"cpu": "500m", "memory": "3Gi"}),
            container("b", {"cpu": "500m"}),
        ],
    }
    result = pod_resources(spec)
    assert cpu(result) == 2  # max(2, 1, 0.5 + 0.5)
    assert result.requests["memory"] == 3 * 1024**3  # max(1Gi, 2Gi, 3Gi)


def test_sidecars_run_alongside_later_init_containers_and_the_app() -> None:
    spec = {
        "initContainers": [
            container("before", {"cpu": "1"}),  # starts before the sidecar: 1
            sidecar("proxy", {"cpu": "300m"}),  # its own start: 0.3
            container("after", {"cpu": "1"}),  # runs next to the sidecar: 1 + 0.3
        ],
        "containers": [container("app", {"cpu": "500m"})],  # 0.5 + 0.3
    }
    assert cpu(pod_resources(spec)) == Fraction(13, 10)  # max(1, 0.3, 1.3, 0.8)


def test_sidecars_add_to_the_app_phase() -> None:
    spec = {
        "initContainers": [sidecar("log", {"memory": "1Gi"}), sidecar("mesh", {"memory": "1Gi"})],
        "containers": [container("app", {"memory": "2Gi"})],
    }
    assert pod_resources(spec).requests["memory"] == 4 * 1024**3  # 2Gi + 1Gi + 1Gi


def test_overhead_is_added_to_requests_and_bounded_limits() -> None:
    spec = {
        "overhead": {"cpu": "250m", "memory": "120Mi"},
        "containers": [container("a", {"cpu": "1", "memory": "1Gi"}, {"cpu": "2"})],
    }
    result = pod_resources(spec)
    assert cpu(result) == Fraction(5, 4)  # 1 + 0.25
    assert result.requests["memory"] == 1024**3 + 120 * 1024**2
    assert result.limits["cpu"] == Fraction(9, 4)  # 2 + 0.25
    assert result.limits["memory"] is None  # no memory limit: overhead does not bound it


def test_pod_level_resources_override_the_container_sum_per_resource() -> None:
    spec = {
        "resources": {"requests": {"cpu": "4"}, "limits": {"cpu": "8", "memory": "16Gi"}},
        "containers": [container("a", {"cpu": "1", "memory": "2Gi"}), container("b", {"cpu": "1"})],
    }
    result = pod_resources(spec)
    assert cpu(result) == 4  # pod-level request wins over 1 + 1
    assert result.requests["memory"] == 2 * 1024**3  # not set at pod level: container sum
    assert result.limits["cpu"] == 8
    assert result.limits["memory"] == 16 * 1024**3


def test_pod_level_limit_stands_in_when_no_container_asks() -> None:
    spec = {"resources": {"limits": {"memory": "4Gi"}}, "containers": [container("a")]}
    assert pod_resources(spec).requests["memory"] == 4 * 1024**3


def test_limits_stand_in_for_missing_requests_per_container() -> None:
    spec = {
        "containers": [
            container("limited", limits={"cpu": "2", "memory": "1Gi"}),
            container("mixed", {"cpu": "100m"}, {"cpu": "1", "memory": "512Mi"}),
        ]
    }
    result = pod_resources(spec)
    assert cpu(result) == Fraction(21, 10)  # 2 (from the limit) + 0.1 (the request)
    assert result.requests["memory"] == 1024**3 + 512 * 1024**2  # both from limits
    assert result.limits == {"cpu": 3, "memory": 1024**3 + 512 * 1024**2}


def test_one_unlimited_container_leaves_the_pod_unbounded() -> None:
    spec = {
        "initContainers": [container("init", {"cpu": "1"})],
        "containers": [
            container("gpu", limits={"cpu": "1", "memory": "1Gi", "nvidia.com/gpu": 1}),
        ],
    }
    result = pod_resources(spec)
    assert result.limits["cpu"] is None  # the init container has no CPU limit
    assert result.limits["memory"] is None
    assert result.limits["nvidia.com/gpu"] == 1  # a container without it uses none


def test_a_pod_without_resources_is_unbounded_and_requests_nothing() -> None:
    result = pod_resources({"containers": [container("a")]})
    assert result.requests == {}
    assert result.limits == {"cpu": None, "memory": None}
    assert result.gpus == 0


def test_invalid_quantity_names_its_field_path() -> None:
    spec = {"containers": [container("a"), container("b", {"memory": "2GB"})]}
    with pytest.raises(WorkloadShapeError, match=r"'2GB' at spec\.template\.spec\.containers\[1\]"):
        pod_resources(spec, where="spec.template.spec")


def test_malformed_containers_are_a_shape_error() -> None:
    with pytest.raises(WorkloadShapeError, match=r"spec\.containers must be a list"):
        pod_resources({"containers": {"name": "a"}})


# --- sums and JSON -----------------------------------------------------------------------


def test_total_adds_groups_and_keeps_unbounded_limits_unbounded() -> None:
    bounded = pod_resources({"containers": [container("a", limits={"cpu": "1", "memory": "1Gi"})]})
    unbounded = pod_resources({"containers": [container("b", {"cpu": "500m"})]})
    result = total([bounded.scaled(2), unbounded])
    assert cpu(result) == Fraction(5, 2)  # 1 x 2 + 0.5
    assert result.limits["cpu"] is None
    assert bounded.scaled(2).limits["memory"] == 2 * 1024**3


def test_to_dict_uses_plain_numbers() -> None:
    spec = {
        "containers": [
            container("a", {"cpu": "1500m", "memory": "64Gi"}, {"cpu": "2", "nvidia.com/gpu": 1})
        ]
    }
    data = pod_resources(spec, {"annotations": {"gpu-fraction": "0.25"}}).to_dict()
    assert data["requests"] == {"cpu": 1.5, "memory": 64 * 1024**3, "nvidia.com/gpu": 1}
    assert data["limits"] == {"cpu": 2, "memory": None, "nvidia.com/gpu": 1}
    assert data["gpus"] == 1.25  # 1 whole + 0.25 share
    assert isinstance(data["requests"]["memory"], int)
