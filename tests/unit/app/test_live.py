"""Resolving a TYPE token against what a cluster serves, as every live front end does."""

from __future__ import annotations

import pytest

from wlmap.app.live import mapped_resources, resolve
from wlmap.catalog import builtin_registry
from wlmap.errors import NoDefinitionError, WorkloadNotFoundError
from wlmap.sources.cluster import ApiResource, Discovery

JOBSET = ApiResource(
    "jobset.x-k8s.io", "v1alpha2", "JobSet", "jobsets", "jobset", True, (), ("list",), True
)
JOB = ApiResource("batch", "v1", "Job", "jobs", "job", True, (), ("list", "watch"), True)
WIDGET_A = ApiResource("a.example", "v1", "Widget", "widgets", "widget", True, (), ("list",))
WIDGET_B = ApiResource("b.example", "v1", "Widget", "widgets", "widget", True, (), ("list",))
SERVICE = ApiResource("", "v1", "Service", "services", "service", True, ("svc",), ("list",))


def test_a_served_kind_a_definition_covers_resolves_to_its_resource() -> None:
    discovery = Discovery((JOBSET, JOB))
    assert resolve(builtin_registry(), discovery, "jobsets") == JOBSET
    assert resolve(builtin_registry(), discovery, "job") == JOB


def test_a_token_served_by_two_groups_names_both_choices() -> None:
    with pytest.raises(NoDefinitionError, match=r"widgets\.a\.example, widgets\.b\.example"):
        resolve(builtin_registry(), Discovery((WIDGET_A, WIDGET_B)), "widget")


def test_a_covered_kind_the_cluster_does_not_serve_asks_for_its_crd() -> None:
    with pytest.raises(WorkloadNotFoundError, match=r"does not serve JobSet .* CRD installed"):
        resolve(builtin_registry(), Discovery((JOB,)), "jobset")


def test_a_served_kind_no_definition_covers_is_refused() -> None:
    with pytest.raises(NoDefinitionError, match="no definition covers Service"):
        resolve(builtin_registry(), Discovery((SERVICE,)), "svc")
    with pytest.raises(NoDefinitionError, match="no resource type 'gizmo'"):
        resolve(builtin_registry(), Discovery((SERVICE,)), "gizmo")


def test_every_type_means_the_served_ones_a_definition_covers() -> None:
    served = mapped_resources(builtin_registry(), Discovery((JOBSET, JOB, SERVICE, WIDGET_A)))
    assert set(served) == {JOBSET, JOB}
