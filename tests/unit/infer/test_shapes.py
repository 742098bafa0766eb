"""Drafts for each shape of workload: what a user sees when the draft is applied."""

from __future__ import annotations

import pytest

from wlmap.definitions import definition_from_mapping
from wlmap.errors import ManifestError
from wlmap.infer import infer
from wlmap.workload import interpret

from ._crds import CONDITIONS, POD_SPEC, POD_TEMPLATE, crd, obj, template
from ._views import components, valid


def test_single_template_with_its_replica_count() -> None:
    source = crd(
        {
            "type": "object",
            "properties": {"replicas": {"type": "integer"}, "template": POD_TEMPLATE},
        }
    )
    draft = infer(source)
    valid(draft, source)
    seen = components(draft, obj({"replicas": 3, "template": template()}))
    assert seen[1:] == [("pod", None, 3)]


def test_a_template_is_found_by_shape_not_by_name() -> None:
    source = crd(
        {
            "type": "object",
            "properties": {
                "template": {"type": "object", "properties": {"text": {"type": "string"}}},
                "box": POD_TEMPLATE,
            },
        }
    )
    structure = infer(source).definition["spec"]["structureDefinition"]
    paths = [
        c["specDefinition"]
        for c in (structure["rootComponent"], *structure["childComponents"])
        if "specDefinition" in c
    ]
    assert paths == [{"podTemplateSpecPath": ".spec.box"}]


def test_list_of_roles_named_by_their_name_field() -> None:
    role = {
        "type": "object",
        "required": ["name"],
        "properties": {
            "name": {"type": "string"},
            "replicas": {"type": "integer"},
            "template": POD_TEMPLATE,
        },
    }
    source = crd({"type": "object", "properties": {"groups": {"type": "array", "items": role}}})
    draft = infer(source)
    valid(draft, source)
    workload = obj(
        {
            "groups": [
                {"name": "a", "replicas": 2, "template": template()},
                {"name": "b", "template": template()},
            ]
        }
    )
    assert components(draft, workload)[1:] == [("group", "a", 2), ("group", "b", 1)]


def test_map_of_roles_keyed_by_role() -> None:
    role = {
        "type": "object",
        "properties": {"replicas": {"type": "integer"}, "template": POD_TEMPLATE},
    }
    source = crd(
        {
            "type": "object",
            "properties": {"roles": {"type": "object", "additionalProperties": role}},
        }
    )
    workload = obj(
        {
            "roles": {
                "Leader": {"replicas": 1, "template": template()},
                "Worker": {"replicas": 4, "template": template()},
            }
        }
    )
    from_schema = infer(source)
    valid(from_schema, source)
    assert components(from_schema, workload)[1:] == [("role", "Leader", 1), ("role", "Worker", 4)]
    # With a sample, the keys it uses become one component each.
    from_sample = infer(source, samples=[workload])
    valid(from_sample, source)
    assert components(from_sample, workload)[1:] == [("leader", None, 1), ("worker", None, 4)]


def test_role_inside_a_role() -> None:
    member = {
        "type": "object",
        "properties": {
            "name": {"type": "string"},
            "replicas": {"type": "integer"},
            "template": POD_TEMPLATE,
        },
    }
    group = {
        "type": "object",
        "properties": {
            "name": {"type": "string"},
            "replicas": {"type": "integer"},
            "members": {"type": "array", "items": member},
        },
    }
    source = crd({"type": "object", "properties": {"groups": {"type": "array", "items": group}}})
    draft = infer(source)
    valid(draft, source)
    children = draft.definition["spec"]["structureDefinition"]["childComponents"]
    assert [(c["name"], c["ownerRef"], "kind" in c) for c in children] == [
        ("group", "widget", False),
        ("member", "group", True),
    ]
    assert children[1]["instanceIdPath"] == ".spec.groups[]?.members[]?.name"


def test_pods_run_through_jobs_when_the_template_sits_in_a_job_spec() -> None:
    job_spec = {
        "type": "object",
        "properties": {
            "parallelism": {"type": "integer"},
            "completions": {"type": "integer"},
            "template": POD_TEMPLATE,
        },
    }
    item = {
        "type": "object",
        "properties": {
            "name": {"type": "string"},
            "replicas": {"type": "integer"},
            "template": {"type": "object", "properties": {"spec": job_spec}},
        },
    }
    source = crd({"type": "object", "properties": {"jobs": {"type": "array", "items": item}}})
    draft = infer(source)
    valid(draft, source)
    job = {
        "name": "train",
        "replicas": 2,
        "template": {"spec": {"parallelism": 4, "completions": 3, "template": template()}},
    }
    assert components(draft, obj({"jobs": [job]}))[1:] == [
        ("job", "train", 2),
        ("pod", "train", 3),
    ]


def test_no_template_at_all_is_a_clear_error() -> None:
    source = crd({"type": "object", "properties": {"size": {"type": "integer"}}})
    with pytest.raises(ManifestError, match=r"Widget.example.com v1: no pod template under \.spec"):
        infer(source)


def test_schemaless_spec_needs_samples() -> None:
    source = crd({"type": "object", "x-kubernetes-preserve-unknown-fields": True})
    with pytest.raises(ManifestError, match="pass sample objects with -f"):
        infer(source)
    sample = obj({"workers": [{"name": "w0", "replicas": 2, "template": template()}]})
    draft = infer(source, samples=[sample])
    valid(draft, source)
    (child,) = draft.definition["spec"]["structureDefinition"]["childComponents"]
    assert child["specDefinition"] == {"podTemplateSpecPath": ".spec.workers[]?.template"}
    assert components(draft, sample)[1:] == [("worker", "w0", 2)]


def test_pod_spec_without_template_metadata() -> None:
    source = crd({"type": "object", "properties": {"pod": POD_SPEC, "size": {"type": "integer"}}})
    (child,) = infer(source).definition["spec"]["structureDefinition"]["childComponents"]
    assert child["specDefinition"] == {"podSpecPath": ".spec.pod"}


def test_conditions_from_samples_mapped_by_vocabulary() -> None:
    source = crd(
        {
            "type": "object",
            "properties": {"suspend": {"type": "boolean"}, "template": POD_TEMPLATE},
        },
        {"type": "object", "properties": {"conditions": CONDITIONS}},
    )
    done = obj(
        {"template": template()},
        {
            "conditions": [
                {"type": "Succeeded", "status": "True"},
                {"type": "Running", "status": "False"},
            ]
        },
    )
    draft = infer(source, samples=[done])
    valid(draft, source)
    definition = definition_from_mapping(draft.definition, "draft")
    assert interpret(definition, done).to_dict()["phases"] == ["Completed"]
    running = obj({"template": template()}, {"conditions": [{"type": "Running", "status": "True"}]})
    assert interpret(definition, running).to_dict()["phases"] == ["Running"]
    asked = obj(
        {"suspend": True, "template": template()},
        {"conditions": [{"type": "Running", "status": "True"}]},
    )
    assert interpret(definition, asked).to_dict()["phases"] == ["Suspending"]
    # Succeeded and Running came from the sample; the common types it did not show are guesses.
    reviewed = {e.subject for e in draft.review}
    assert "condition Succeeded" not in reviewed
    assert "condition Failed" in reviewed


def test_phase_enum_mapped_and_unknown_values_listed() -> None:
    phase = {"type": "string", "enum": ["Pending", "Running", "Succeeded", "Failed", "Draining"]}
    source = crd(
        {"type": "object", "properties": {"template": POD_TEMPLATE}},
        {"type": "object", "properties": {"phase": phase}},
    )
    draft = infer(source)
    mappings = draft.definition["spec"]["structureDefinition"]["rootComponent"]["statusDefinition"][
        "statusMappings"
    ]
    assert mappings["completed"] == [{"byPhase": "Succeeded"}]
    assert mappings["initializing"] == [{"byPhase": "Pending"}]
    assert [e.subject for e in draft.review] == ["phase Draining", "replicasPath"]


def test_a_schemaless_version_reads_the_fields_of_a_described_one() -> None:
    source = crd(
        {
            "type": "object",
            "properties": {"replicas": {"type": "integer"}, "template": POD_TEMPLATE},
        }
    )
    described = source["spec"]["versions"][0]
    schemaless = {
        "name": "v1alpha1",
        "served": True,
        "storage": False,
        "schema": {
            "openAPIV3Schema": {
                "type": "object",
                "properties": {
                    "spec": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}
                },
            }
        },
    }
    source["spec"]["versions"] = [schemaless, described]
    draft = infer(source, "v1alpha1")
    valid(draft, source)
    seen = components(
        draft,
        {**obj({"replicas": 2, "template": template()}), "apiVersion": "example.com/v1alpha1"},
    )
    assert seen[1:] == [("pod", None, 2)]
    assert "schema" in {e.subject for e in draft.review}
