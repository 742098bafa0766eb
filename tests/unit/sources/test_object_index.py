"""The watch-fed index: ownership followed both ways, whatever order objects arrive in."""

from __future__ import annotations

import copy
from typing import Any

from tests.unit.sources.jobset_family import NAMESPACE, jobset_family
from wlmap.sources.cluster.object_index import ObjectIndex


def names(objects: list[dict[str, Any]]) -> list[str]:
    return sorted(str(o["metadata"]["name"]) for o in objects)


def test_pods_seen_before_their_jobs_are_found_under_the_jobset_once_the_jobs_arrive() -> None:
    family = jobset_family()
    index = ObjectIndex()
    index.put(family.jobset)
    for pod in family.pods:
        index.put(pod)
    jobset_uid = family.jobset["metadata"]["uid"]

    assert index.descendants(jobset_uid) == []  # the Jobs linking them are not seen yet
    assert index.owners(family.pods[0]) == []
    missing = index.missing_owner(family.pods[0])
    assert missing is not None and missing["kind"] == "Job"

    for job in family.jobs:
        index.put(job)
    below = index.descendants(jobset_uid)
    assert names(below) == names(family.jobs + family.pods)
    assert [o["kind"] for o in index.owners(family.pods[0])] == ["Job", "JobSet"]
    assert index.missing_owner(family.pods[0]) is None


def test_a_deleted_pod_leaves_every_index() -> None:
    family = jobset_family()
    index = ObjectIndex()
    for obj in [family.jobset, *family.jobs, *family.pods]:
        index.put(obj)
    gone = family.pods[0]

    assert index.remove(gone) is gone
    assert gone["metadata"]["name"] not in names(index.descendants("coordinator-example-uid"))
    assert len(index.of_type("", "Pod", NAMESPACE)) == 4
    assert index.remove(gone) is None  # a repeated deletion event changes nothing


def test_a_deleted_job_keeps_its_pods_until_their_own_deletion_is_seen() -> None:
    family = jobset_family()
    index = ObjectIndex()
    for obj in [family.jobset, *family.jobs, *family.pods]:
        index.put(obj)
    workers = family.jobs[0]
    index.remove(workers)
    assert names(index.descendants("coordinator-example-uid")) == names(
        [family.jobs[1], family.pods[4]]
    )
    index.put(workers)  # seen again (a relist): its pods are found under it again
    assert len(index.descendants("coordinator-example-uid")) == 7


def test_a_relisting_removes_what_was_deleted_while_no_watch_ran() -> None:
    family = jobset_family()
    index = ObjectIndex()
    for obj in [family.jobset, *family.jobs, *family.pods]:
        index.put(obj)
    survivors = [copy.deepcopy(p) for p in family.pods[1:]]
    survivors[0]["metadata"]["resourceVersion"] = "2"  # changed meanwhile

    changed, removed = index.replace("", "Pod", NAMESPACE, survivors)

    assert names(removed) == [family.pods[0]["metadata"]["name"]]
    assert names(changed) == [survivors[0]["metadata"]["name"]]  # the others are as held
    assert names(index.of_type("", "Pod", None)) == names(survivors)
    assert len(index.of_type("batch", "Job", NAMESPACE)) == 2  # other types are untouched


def test_a_relisting_of_one_namespace_leaves_the_others() -> None:
    family = jobset_family()
    index = ObjectIndex()
    elsewhere = copy.deepcopy(family.pods[0])
    elsewhere["metadata"].update(namespace="team-b", uid="other-uid")
    index.put(elsewhere)
    index.put(family.pods[0])
    index.replace("", "Pod", NAMESPACE, [])
    assert index.of_type("", "Pod", None) == [elsewhere]


def test_an_adopted_pod_moves_to_its_new_owner() -> None:
    family = jobset_family()
    index = ObjectIndex()
    for obj in [family.jobset, *family.jobs]:
        index.put(obj)
    orphan = copy.deepcopy(family.pods[4])
    orphan["metadata"]["ownerReferences"] = []
    index.put(orphan)
    assert len(index.descendants("coordinator-example-uid")) == 2  # the Jobs only

    index.put(family.pods[4])  # the driver Job adopts it
    assert family.pods[4] in index.descendants(family.jobs[1]["metadata"]["uid"])
    assert family.pods[4] in index.descendants("coordinator-example-uid")


def test_objects_without_uid_are_not_indexed() -> None:
    index = ObjectIndex()
    assert not index.put({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "x"}})
    assert len(index) == 0
