"""Definitions proven against CRD schemas: missing fields, status writes, versions."""

from __future__ import annotations

from typing import Any

from tests.corpus import corpus_crd
from tests.unit.definitions.samples import child, root, sample
from wlmap.definitions import definition_from_mapping
from wlmap.definitions.schema_check import crd_problems


def jobset_crd() -> dict[str, Any]:
    """The corpus JobSet CRD, parsed once for all these tests (crd_problems only reads it)."""
    return corpus_crd("jobset.x-k8s.io", "JobSet")


def jobset_sample() -> dict[str, Any]:
    """The validation sample without its phase (JobSet has none: the CRD check says so)."""
    doc = sample()
    status = root(doc)["statusDefinition"]
    status.pop("phaseDefinition")
    status["statusMappings"]["running"] = [{"byConditions": [{"type": "StartupPolicyCompleted"}]}]
    return doc


def test_a_phase_the_kind_does_not_have_is_reported() -> None:
    [problem] = crd_problems(definition_from_mapping(sample()), jobset_crd())
    assert problem.path.endswith("statusDefinition.phaseDefinition.path")
    assert ".status has no field 'phase'" in problem.message


def test_the_sample_matches_the_jobset_crd() -> None:
    assert crd_problems(definition_from_mapping(jobset_sample()), jobset_crd()) == []


def test_a_missing_field_is_named_with_what_exists() -> None:
    doc = jobset_sample()
    child(doc)["scaleDefinition"]["replicasPath"] = ".spec.replicatedJobs[].replica"
    [problem] = crd_problems(definition_from_mapping(doc), jobset_crd())
    assert (
        problem.path == "spec.structureDefinition.childComponents[0].scaleDefinition.replicasPath"
    )
    assert "'replica'" in problem.message
    assert "replicas" in problem.message  # the fields that do exist are listed


def test_writing_status_is_refused() -> None:
    doc = jobset_sample()
    root(doc)["suspendDefinition"]["suspendActions"][0]["path"] = ".status.restarts"
    [problem] = crd_problems(definition_from_mapping(doc), jobset_crd())
    assert "status subresource owns" in problem.message


def test_free_form_and_metadata_fields_are_not_second_guessed() -> None:
    doc = jobset_sample()
    child(doc)["podSelector"]["componentTypeSelector"]["keyPath"] = ".metadata.labels.anything"
    root(doc)["statusDefinition"]["statusMappings"]["failed"] = [
        {
            "byExpression": {
                "expression": '.metadata.annotations["x"] == "y"',
                "expectedResult": "true",
            }
        }
    ]
    assert crd_problems(definition_from_mapping(doc), jobset_crd()) == []


def test_unserved_version_and_other_kind() -> None:
    doc = jobset_sample()
    root(doc)["kind"]["version"] = "v9"
    [problem] = crd_problems(definition_from_mapping(doc), jobset_crd())
    assert "does not serve version 'v9'" in problem.message
    root(doc)["kind"] = {"group": "example.com", "version": "v1", "kind": "Other"}
    [problem] = crd_problems(definition_from_mapping(doc), jobset_crd())
    assert "not Other.example.com" in problem.message
