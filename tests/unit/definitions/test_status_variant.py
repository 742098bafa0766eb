"""The pending/progressing variant of the format: it loads, maps onto Initializing, and warns."""

from __future__ import annotations

import copy
from typing import Any

import pytest
import yaml

from tests.corpus import corpus_object
from wlmap.definitions import definition_from_mapping, load_definitions, validate_definition
from wlmap.workload import interpret

# A PyTorchJob definition written in the variant: Initializing split into pending (queued,
# nothing created) and progressing (pods being created), as the variant documents them.
VARIANT = """
apiVersion: run.ai/v1alpha1
kind: Karta
metadata: {name: pytorchjob-variant}
spec:
  structureDefinition:
    rootComponent:
      name: job
      kind: {group: kubeflow.org, version: v1, kind: PyTorchJob}
      statusDefinition:
        conditionsDefinition: {path: .status.conditions}
        statusMappings:
          pending:
            - byExpression:
                expression: '.status != null and ((.status.conditions // []) | length) == 0'
                expectedResult: "true"
          progressing:
            - byConditions: [{type: Created, status: "True"}]
              byExpression:
                expression: '[.status.conditions[]? | select(.type != "Created")] | length'
                expectedResult: "0"
          running:
            - byConditions: [{type: Running, status: "True"}]
          completed:
            - byConditions: [{type: Succeeded, status: "True"}]
"""
MAPPINGS = "spec.structureDefinition.rootComponent.statusDefinition.statusMappings"


def variant() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load(VARIANT)
    return data


def job(*conditions: tuple[str, str]) -> dict[str, Any]:
    obj = copy.deepcopy(
        corpus_object("extracted/pytorchjob-with-status-from-docs.yaml", "PyTorchJob")
    )
    obj["status"]["conditions"] = [
        {"type": t, "status": s, "reason": f"PyTorchJob{t}"} for t, s in conditions
    ]
    return obj


def test_the_variant_loads_and_each_variant_state_is_a_warning_naming_its_field() -> None:
    definition = definition_from_mapping(variant())
    problems = validate_definition(definition)
    assert [(p.severity, p.path) for p in problems] == [
        ("warning", f"{MAPPINGS}.pending"),
        ("warning", f"{MAPPINGS}.progressing"),
    ]
    assert "read as Initializing" in problems[0].message


def test_the_variant_loads_from_a_file(tmp_path: Any) -> None:
    path = tmp_path / "variant.yaml"
    path.write_text(VARIANT, encoding="utf-8")
    [definition] = load_definitions(path)
    assert definition.name == "pytorchjob-variant"


@pytest.mark.parametrize(
    ("conditions", "expected"),
    [
        ((), ("Initializing",)),
        ((("Created", "True"),), ("Initializing",)),
        ((("Created", "True"), ("Running", "True")), ("Running",)),
        ((("Created", "True"), ("Running", "False"), ("Succeeded", "True")), ("Completed",)),
    ],
    ids=["pending", "progressing", "running", "completed"],
)
def test_variant_states_are_reported_as_initializing(
    conditions: tuple[tuple[str, str], ...], expected: tuple[str, ...]
) -> None:
    obj = job(*conditions)  # read here: collection must not need the corpus
    assert interpret(definition_from_mapping(variant()), obj, strict=True).phases == expected


def test_a_variant_matcher_with_a_broken_expression_is_reported_at_its_own_field() -> None:
    doc = variant()
    mappings = doc["spec"]["structureDefinition"]["rootComponent"]["statusDefinition"]
    mappings["statusMappings"]["progressing"][0]["byExpression"]["expression"] = ".status |"
    errors = [
        p
        for p in validate_definition(definition_from_mapping(doc, validate=False))
        if p.severity == "error"
    ]
    assert [p.path for p in errors] == [f"{MAPPINGS}.progressing[0].byExpression.expression"]
