"""The operator's cache read: a workload's gang and pod links computed from watched objects,
whatever order they arrived in, as from a read of the cluster."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from tests.unit.sources.jobset_family import Family, jobset_family
from wlmap.catalog import builtin_registry
from wlmap.errors import WorkloadNotFoundError
from wlmap.operator.core.settings import Settings
from wlmap.operator.gangs.cache import has_unlinked_pods
from wlmap.operator.gangs.groups import desired_state
from wlmap.sources.cluster import Cluster, Discovery
from wlmap.sources.cluster.cache import ClusterCache
from wlmap.sources.workloads import WorkloadReader

SETTINGS = Settings(target="kai")
FED = {("", "Pod"), ("batch", "Job"), ("jobset.x-k8s.io", "JobSet")}


def fed_cache() -> ClusterCache:
    """A cache fed by hand with the events watches would bring (it opens no watch)."""
    return ClusterCache(Cluster(api=None, context=None), Discovery(()), (), fed=FED)


def pod_links(cache: ClusterCache, family: Family) -> dict[str, str]:
    registry = builtin_registry()
    snapshot = asyncio.run(cache.read(family.jobset, registry, Discovery(())))
    reader = WorkloadReader(registry, snapshot.manifests, pods_listed=snapshot.pods_listed)
    current = snapshot.manifests[0].obj
    entry = reader.entry(current)
    assert entry is not None
    view = reader.view(entry, current, unknown_without_pods=True)
    desired = desired_state(SETTINGS, view, current)
    (group,) = desired.objects
    spec = group["spec"]
    minimum = spec.get("minMember") or sum(s["minMember"] for s in spec["subGroups"])
    assert minimum == 5  # from the spec, with or without pods
    return desired.pod_groups


def test_pods_seen_before_their_jobs_join_the_gang_once_the_jobs_arrive() -> None:
    family = jobset_family()
    cache = fed_cache()
    cache.observe(None, family.jobset)  # None: kopf's type for objects of a listing
    for pod in family.pods:
        cache.observe("ADDED", pod)
    assert pod_links(cache, family) == {}
    assert not has_unlinked_pods(cache, SETTINGS, family.jobset)  # no path to them yet

    for job in family.jobs:
        cache.observe("ADDED", job)
        assert has_unlinked_pods(cache, SETTINGS, job)  # its arrival must requeue the JobSet
    links = pod_links(cache, family)
    assert links.keys() == {p["metadata"]["name"] for p in family.pods}
    (group,) = set(links.values())  # one gang: every pod joins the JobSet's group
    assert group.startswith("jobset-coordinator-example-")


def test_a_deleted_pod_is_no_longer_linked() -> None:
    family = jobset_family()
    cache = fed_cache()
    for obj in [family.jobset, *family.jobs, *family.pods]:
        cache.observe("ADDED", obj)
    cache.observe("DELETED", family.pods[0])
    assert family.pods[0]["metadata"]["name"] not in pod_links(cache, family)
    assert len(pod_links(cache, family)) == 4


def test_linked_pods_need_no_reconciliation() -> None:
    family = jobset_family()
    cache = fed_cache()
    for obj in [family.jobset, *family.jobs]:
        cache.observe("ADDED", obj)
    linked: dict[str, Any] = {
        **family.pods[0],
        "metadata": {
            **family.pods[0]["metadata"],
            "annotations": {"pod-group-name": "pg-coordinator-example"},
        },
    }
    cache.observe("ADDED", linked)
    assert not has_unlinked_pods(cache, SETTINGS, linked)
    assert not has_unlinked_pods(cache, SETTINGS, family.jobs[0])
    assert not has_unlinked_pods(cache, Settings(target="workload-api"), family.pods[1])


def test_a_workload_whose_deletion_was_seen_is_not_found() -> None:
    family = jobset_family()
    cache = fed_cache()
    cache.observe("ADDED", family.jobset)
    cache.observe("DELETED", family.jobset)
    with pytest.raises(WorkloadNotFoundError, match="coordinator-example"):
        asyncio.run(cache.read(family.jobset, builtin_registry(), Discovery(())))
