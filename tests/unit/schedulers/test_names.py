"""Names of generated gang objects: unique per workload and gang, valid DNS labels."""

from __future__ import annotations

import copy
import re
from typing import Any

from tests.corpus import corpus_object
from wlmap.catalog import builtin_registry
from wlmap.schedulers import kai_podgroups, volcano_podgroups, workload_api_objects
from wlmap.workload import interpret

DNS_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$")


def _named(relative: str, kind: str, name: str, uid: str) -> dict[str, Any]:
    obj = copy.deepcopy(corpus_object(relative, kind))
    obj["metadata"].update(name=name, namespace="team", uid=uid)
    return obj


def _names(obj: dict[str, Any]) -> list[str]:
    view = interpret(builtin_registry().for_object(obj), obj)
    made = kai_podgroups(view, obj) + volcano_podgroups(view, obj) + workload_api_objects(view, obj)
    return [o["metadata"]["name"] for o in made]


def test_two_kinds_with_one_name_get_different_groups() -> None:
    jobset = _named("jobset/coordinator.yaml", "JobSet", "train", "uid-1")
    pytorch = _named("kubeflow-pytorchjob/simple.yaml", "PyTorchJob", "train", "uid-2")
    assert set(_names(jobset)).isdisjoint(_names(pytorch))
    assert _names(jobset)[0].startswith("jobset-train-")


def test_a_long_name_is_cut_to_a_dns_label_and_stays_unique() -> None:
    long = "a-jobset-whose-name-is-far-longer-than-any-label-value-may-be-" + "x" * 40
    one = _named("jobset/coordinator.yaml", "JobSet", long, "uid-1")
    other = _named("jobset/coordinator.yaml", "JobSet", long, "uid-2")
    assert all(DNS_LABEL.match(n) for n in _names(one) + _names(other))
    assert set(_names(one)).isdisjoint(_names(other))
    view = interpret(builtin_registry().for_object(one), one)
    (group,) = kai_podgroups(view, one)
    assert "wlmap.dev/workload" not in group["metadata"]["labels"]  # over 63: left out
