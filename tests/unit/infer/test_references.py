"""A kind whose pods come from an object it names: the draft reads them through it."""

from __future__ import annotations

from typing import Any

import pytest

from wlmap.definitions import definition_from_mapping
from wlmap.errors import ManifestError
from wlmap.infer import infer
from wlmap.infer._references import candidate_kinds
from wlmap.workload import interpret, reference_requests
from wlmap.workload.compiled import prepare

from ._crds import POD_TEMPLATE, ROLE_LIST, crd, obj, template
from ._views import valid


def _ref(
    kind: dict[str, Any],
    group: dict[str, Any] | None = None,
    own: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """A Run whose spec names its runtime, with ``own`` fields beside (no pod template
    of its own unless they hold one)."""
    properties: dict[str, Any] = {"name": {"type": "string"}, "kind": kind}
    if group is not None:
        properties["apiGroup"] = group
    fields = {"runtimeRef": {"type": "object", "properties": properties}, **(own or {})}
    return crd({"type": "object", "properties": fields}, kind="Run")


def _runtime(kind: str = "Runtime", scope: str = "Namespaced") -> dict[str, Any]:
    out = crd({"type": "object", "properties": {"roles": ROLE_LIST}}, kind=kind)
    out["spec"]["scope"] = scope
    return out


def _run(ref: dict[str, Any]) -> dict[str, Any]:
    return {**obj({"runtimeRef": ref}), "kind": "Run"}


def _runtime_object(kind: str = "Runtime") -> dict[str, Any]:
    roles = [
        {"name": "launcher", "replicas": 1, "template": template()},
        {"name": "worker", "replicas": 4, "template": template()},
    ]
    return {
        "apiVersion": "example.com/v1",
        "kind": kind,
        "metadata": {"name": "torch"},
        "spec": {"roles": roles},
    }


def _view(draft_definition: dict[str, Any], workload: dict[str, Any], **refs: Any) -> Any:
    definition = definition_from_mapping(draft_definition, "draft")
    return interpret(definition, workload, references=refs).to_dict()


def test_pods_come_from_the_runtime_the_workload_names_by_default() -> None:
    source = _ref(
        {"type": "string", "default": "Runtime"},
        {"type": "string", "default": "example.com"},
    )
    draft = infer(source, known=[_runtime()])
    valid(draft, source)
    (reference,) = draft.definition["spec"]["structureDefinition"]["references"]
    assert reference["name"] == "runtime"
    assert reference["kind"] == {"group": "example.com", "version": "v1", "kind": "Runtime"}
    assert reference["namespaceExpression"] == ".metadata.namespace"
    view = _view(draft.definition, _run({"name": "torch"}), runtime=_runtime_object())
    pods = [(c["instance"], c["replicas"]) for c in view["components"] if c["name"] == "role"]
    assert pods == [("launcher", 1), ("worker", 4)]
    assert view["totals"]["pods"] == 5


def test_the_reference_names_the_object_only_when_its_kind_and_group_match() -> None:
    source = _ref(
        {"type": "string", "default": "Runtime"},
        {"type": "string", "default": "example.com"},
    )
    draft = infer(source, known=[_runtime()])
    compiled = prepare(definition_from_mapping(draft.definition, "draft"))

    def named(ref: dict[str, Any]) -> list[str | None]:
        return [r.name for r in reference_requests(compiled, _run(ref)) if r.applies]

    assert named({"name": "torch"}) == ["torch"]  # kind and group by their defaults
    assert named({"name": "torch", "kind": "Runtime", "apiGroup": "example.com"}) == ["torch"]
    assert named({"name": "torch", "kind": "OtherRuntime"}) == []
    assert named({"name": "torch", "apiGroup": "elsewhere.io"}) == []


def test_two_kinds_of_runtime_with_the_same_templates_are_read_as_alternatives() -> None:
    source = _ref({"type": "string", "enum": ["Runtime", "ClusterRuntime"]})
    known = [_runtime(), _runtime("ClusterRuntime", scope="Cluster")]
    draft = infer(source, known=known)
    valid(draft, source)
    references = draft.definition["spec"]["structureDefinition"]["references"]
    assert [r["name"] for r in references] == ["runtime", "clusterRuntime"]
    assert "namespaceExpression" not in references[1]  # cluster-scoped
    pods = next(
        c
        for c in draft.definition["spec"]["structureDefinition"]["childComponents"]
        if c["name"] == "role"
    )
    assert pods["specDefinition"]["podTemplateSpecPath"].startswith(
        "($runtime // $clusterRuntime) | "
    )
    view = _view(
        draft.definition,
        _run({"name": "torch", "kind": "ClusterRuntime"}),
        clusterRuntime=_runtime_object("ClusterRuntime"),
    )
    assert view["totals"]["pods"] == 5


def test_samples_show_which_kind_a_reference_names() -> None:
    source = _ref({"type": "string"})
    sample = _run({"name": "torch", "kind": "Runtime"})
    assert infer(source, samples=[sample], known=[_runtime()]).definition["spec"][
        "structureDefinition"
    ]["references"][0]["name"] == ("runtime")
    assert candidate_kinds(source, None, [sample]) == [("Runtime", None)]


def test_a_reference_to_a_kind_of_another_group_is_no_source_of_pods() -> None:
    source = _ref(
        {"type": "string", "default": "Runtime"},
        {"type": "string", "default": "elsewhere.io"},
    )
    assert candidate_kinds(source, None) == [("Runtime", "elsewhere.io")]
    with pytest.raises(ManifestError, match="no given CRD of a kind it names by reference"):
        infer(source, known=[_runtime()])


def test_without_the_runtime_crd_the_draft_says_what_is_missing() -> None:
    source = _ref({"type": "string", "default": "Runtime"})
    with pytest.raises(ManifestError, match=r"Run\.example\.com v1: no pod template"):
        infer(source)


def test_a_kind_with_templates_of_its_own_ignores_what_it_names() -> None:
    source = _ref({"type": "string", "default": "Runtime"}, own={"template": POD_TEMPLATE})
    structure = infer(source, known=[_runtime()]).definition["spec"]["structureDefinition"]
    assert "references" not in structure


def test_a_karta_draft_does_not_follow_references() -> None:
    source = _ref({"type": "string", "default": "Runtime"})
    with pytest.raises(ManifestError, match="no pod template"):
        infer(source, output="karta", known=[_runtime()])


RESOURCES: dict[str, Any] = {
    "type": "object",
    "properties": {
        "limits": {"type": "object", "additionalProperties": {"type": "string"}},
        "requests": {"type": "object", "additionalProperties": {"type": "string"}},
    },
}


def test_the_workloads_own_count_overrides_the_role_the_runtime_labels_with_its_name() -> None:
    trainer = {
        "type": "object",
        "properties": {
            "image": {"type": "string"},
            "resources": RESOURCES,
            "numNodes": {"type": "integer"},
        },
    }
    source = _ref({"type": "string", "default": "Runtime"}, own={"trainer": trainer})
    runtime = _runtime_object()
    runtime["spec"]["roles"][1]["template"]["metadata"] = {
        "labels": {"example.com/step": "trainer"}
    }
    draft = infer(source, samples=[runtime], known=[_runtime()])
    valid(draft, source)
    assert any(e.choice == ".spec.trainer.numNodes first" for e in draft.evidence)

    def pods(run: dict[str, Any]) -> list[tuple[str, int]]:
        view = _view(draft.definition, run, runtime=runtime)
        return [(c["instance"], c["replicas"]) for c in view["components"] if c["name"] == "role"]

    eight: dict[str, Any] = {"image": "trainer:1", "numNodes": 8}
    assert pods(_run_with({"name": "torch"}, eight)) == [("launcher", 1), ("worker", 8)]
    unset = {"image": "trainer:1"}
    assert pods(_run_with({"name": "torch"}, unset)) == [("launcher", 1), ("worker", 4)]
    # without a sample of the runtime, nothing tells which role the trainer fields are
    plain = infer(source, known=[_runtime()])
    assert not any(e.choice == ".spec.trainer.numNodes first" for e in plain.evidence)


def _run_with(ref: dict[str, Any], trainer: dict[str, Any]) -> dict[str, Any]:
    return {**obj({"runtimeRef": ref, "trainer": trainer}), "kind": "Run"}
