"""Pipeline parallelism: each replica is a group of pods, one per pipeline stage."""

from __future__ import annotations

from typing import Any

from wlmap.definitions import definition_from_mapping
from wlmap.infer import infer
from wlmap.workload import interpret

from ._crds import POD_SPEC, POD_TEMPLATE, crd, obj, template
from ._views import components, valid

_INTEGER: dict[str, Any] = {"type": "integer"}
_PARALLELISM: dict[str, Any] = {
    "type": "object",
    "properties": {"pipeline": _INTEGER, "tensor": _INTEGER},
}


def _pods(draft: Any, spec: dict[str, Any]) -> int:
    definition = definition_from_mapping(draft.definition, "draft")
    total: int = interpret(definition, obj(spec)).to_dict()["totals"]["pods"]
    return total


def test_pipeline_stages_of_a_multi_node_replica_are_its_pods() -> None:
    multi_node = {"type": "object", "properties": {"parallelism": _PARALLELISM}}
    source = crd(
        {
            "type": "object",
            "properties": {"replicas": _INTEGER, "template": POD_TEMPLATE, "multiNode": multi_node},
        }
    )
    draft = infer(source)
    valid(draft, source)
    spec = {"replicas": 2, "template": template()}
    staged = {**spec, "multiNode": {"parallelism": {"pipeline": 4, "tensor": 8}}}
    assert components(draft, obj(staged))[1:] == [("podGroup", None, 2), ("pod", None, 4)]
    # Tensor parallelism splits a stage over one pod's GPUs: no more pods.
    assert _pods(draft, staged) == 8
    assert _pods(draft, spec) == 2


def _leader_and_worker(parallelism: dict[str, Any]) -> dict[str, Any]:
    """A served model's replicas, each a leader pod (``template``) and worker pods."""
    return crd(
        {
            "type": "object",
            "properties": {
                "replicas": _INTEGER,
                "parallelism": parallelism,
                "template": POD_SPEC,
                "worker": POD_SPEC,
            },
        }
    )


def test_a_worker_beside_a_leader_runs_the_other_stages() -> None:
    source = _leader_and_worker(_PARALLELISM)
    draft = infer(source)
    valid(draft, source)
    pod = template()["spec"]
    spec = {"replicas": 2, "parallelism": {"pipeline": 3}, "template": pod, "worker": pod}
    assert components(draft, obj(spec))[1:] == [
        ("podGroup", None, 2),
        ("pod", None, 1),
        ("worker", None, 2),
    ]
    assert _pods(draft, spec) == 6


def test_data_parallel_ranks_over_those_on_one_pod_add_pods() -> None:
    # vLLM's data-parallel size and the ranks one node runs: 32 over 8 is 4 pods.
    parallelism = {
        "type": "object",
        "properties": {"data": _INTEGER, "dataLocal": _INTEGER, "pipeline": _INTEGER},
    }
    source = _leader_and_worker(parallelism)
    draft = infer(source)
    valid(draft, source)
    pod = template()["spec"]
    spec = {"replicas": 1, "parallelism": {"data": 32, "dataLocal": 8}, "template": pod}
    assert _pods(draft, {**spec, "worker": pod}) == 4
    both = {**spec, "worker": pod, "parallelism": {"data": 4, "dataLocal": 2, "pipeline": 2}}
    assert _pods(draft, both) == 4
