"""Every gang object the operator keeps names its workload as controller owner: a
cluster's garbage collector deletes it with the workload, even when the operator missed
the deletion (its watches were down) and before its next sweep for orphans."""

from __future__ import annotations

import copy

import pytest

from tests.corpus import corpus_object
from wlmap.catalog import builtin_registry
from wlmap.schedulers import KEPT_TARGETS, PROFILES
from wlmap.workload import interpret


@pytest.mark.parametrize("name", KEPT_TARGETS)
def test_every_kept_gang_object_is_owned_by_its_workload(name: str) -> None:
    obj = copy.deepcopy(corpus_object("kubeflow-pytorchjob/deepspeed-demo-gpu.yaml", "PyTorchJob"))
    obj["metadata"]["uid"] = "uid-of-the-pytorchjob"
    view = interpret(builtin_registry().for_object(obj), obj)

    made = PROFILES[name].build(view, obj)

    assert made
    for gang_object in made:
        (owner,) = gang_object["metadata"]["ownerReferences"]
        assert owner["controller"] is True
        assert (owner["apiVersion"], owner["kind"], owner["name"], owner["uid"]) == (
            obj["apiVersion"],
            obj["kind"],
            obj["metadata"]["name"],
            "uid-of-the-pytorchjob",
        )
