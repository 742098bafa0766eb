"""Generic statuses from native status: every matcher kind, every status, and explanations."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from tests.corpus import corpus_object
from tests.unit.workload.definitions import POD, define
from wlmap.errors import ExpressionError
from wlmap.workload import interpret

# Every generic status, from the conditions a Kubeflow training job carries.
TRAINING = define(
    """
apiVersion: wlmap.dev/v1alpha1
kind: WorkloadMap
metadata: {name: test-training}
spec:
  structureDefinition:
    rootComponent:
      name: job
      kind: {group: kubeflow.org, version: v1, kind: PyTorchJob}
      statusDefinition:
        conditionsDefinition: {path: .status.conditions}
        statusMappings:
          suspended:
            - byConditions: [{type: Suspended, status: "True"}]
              byExpression: {expression: '.spec.runPolicy.suspend // false', expectedResult: "true"}
          suspending:
            - byExpression:
                expression: >-
                  (.spec.runPolicy.suspend // false) and
                  ([.status.conditions[]? | select(.type == "Suspended" and .status == "True")] | length == 0)
                expectedResult: "true"
          resuming:
            - byConditions: [{type: Suspended, status: "True"}]
              byExpression: {expression: '.spec.runPolicy.suspend // false', expectedResult: "false"}
          running:
            - byConditions: [{type: Running, status: "True"}]
          failed:
            - byConditions: [{type: Failed, status: "True"}]
          completed:
            - byConditions: [{type: Succeeded, status: "True", reason: PyTorchJobSucceeded}]
          initializing:
            - byConditions: [{type: Created, status: "True"}]
              byExpression:
                expression: '[.status.conditions[]? | select(.type != "Created")] | length'
                expectedResult: "0"
          degraded:
            - byConditions: [{type: Restarting, status: "True"}]
"""
)


def job_with(*conditions: tuple[str, str], suspend: bool | None = None) -> dict[str, Any]:
    obj = copy.deepcopy(
        corpus_object("extracted/pytorchjob-with-status-from-docs.yaml", "PyTorchJob")
    )
    obj["status"]["conditions"] = [
        {"type": t, "status": s, "reason": f"PyTorchJob{t}", "message": f"{t} is {s}"}
        for t, s in conditions
    ]
    if suspend is not None:
        obj["spec"].setdefault("runPolicy", {})["suspend"] = suspend
    return obj


def test_real_completed_job_is_completed_with_its_evidence() -> None:
    obj = corpus_object("extracted/pytorchjob-with-status-from-docs.yaml", "PyTorchJob")
    view = interpret(TRAINING, obj, strict=True)
    assert view.phases == ("Completed",)
    [fired] = view.explanation.matched
    assert fired.status.value == "Completed"
    [evidence] = fired.evidence
    assert evidence.check == "condition"
    assert evidence.found == {
        "type": "Succeeded",
        "status": "True",
        "reason": "PyTorchJobSucceeded",
        "message": "PyTorchJob pytorch-tcp-dist-mnist is successfully completed.",
    }


# (conditions, spec.runPolicy.suspend): the corpus job is read when the test runs
@pytest.mark.parametrize(
    ("conditions", "suspend", "expected"),
    [
        ((("Created", "True"),), None, ("Initializing",)),
        ((("Created", "True"), ("Running", "True")), None, ("Running",)),
        (
            (("Created", "True"), ("Running", "False"), ("Succeeded", "True")),
            None,
            ("Completed",),
        ),
        ((("Created", "True"), ("Running", "False"), ("Failed", "True")), None, ("Failed",)),
        ((("Created", "True"), ("Restarting", "True")), None, ("Degraded",)),
        ((("Created", "True"), ("Running", "True")), True, ("Suspending", "Running")),
        ((("Created", "True"), ("Suspended", "True")), True, ("Suspended",)),
        ((("Created", "True"), ("Suspended", "True")), False, ("Resuming",)),
    ],
    ids=[
        "initializing",
        "running",
        "completed",
        "failed",
        "degraded",
        "suspending",
        "suspended",
        "resuming",
    ],
)
def test_every_generic_status_is_reachable(
    conditions: tuple[tuple[str, str], ...], suspend: bool | None, expected: tuple[str, ...]
) -> None:
    obj = job_with(*conditions, suspend=suspend)
    assert interpret(TRAINING, obj, strict=True).phases == expected


def test_reason_must_match_when_set() -> None:
    obj = job_with(("Succeeded", "True"))
    obj["status"]["conditions"][0]["reason"] = "SomethingElse"
    assert "Completed" not in interpret(TRAINING, obj, strict=True).phases


def test_undefined_lists_nearest_misses() -> None:
    obj = job_with(("Created", "False"))
    view = interpret(TRAINING, obj, strict=True)
    assert view.phases == ("Undefined",)
    assert view.explanation.note == "no status matcher holds"
    misses = view.explanation.nearest_misses
    assert len(misses) == 3
    # half-matching matchers come first: initializing (no condition but Created) is one
    assert all(m.score == 0.5 for m in misses[:2])
    initializing = next(m for m in misses if m.status.value == "Initializing")
    assert [e.holds for e in initializing.evidence] == [False, True]
    assert initializing.evidence[0].found == {
        "type": "Created",
        "status": "False",
        "reason": "PyTorchJobCreated",
        "message": "Created is False",
    }


def test_missing_condition_never_matches() -> None:
    view = interpret(TRAINING, job_with(), strict=True)
    assert view.phases == ("Undefined",)
    condition_checks = [
        e for m in view.explanation.nearest_misses for e in m.evidence if e.check == "condition"
    ]
    assert all(e.found is None for e in condition_checks)


def test_phase_matcher_on_a_real_pod() -> None:
    obj = copy.deepcopy(corpus_object("core-gpu/kai-quickstart-gpu-pod.yaml", "Pod"))
    obj["status"] = {"phase": "Running"}
    view = interpret(POD, obj, strict=True)
    assert view.phases == ("Running",)
    assert view.explanation.matched[0].evidence[0].to_dict() == {
        "check": "phase",
        "expected": {"phase": "Running"},
        "found": "Running",
        "holds": True,
    }
    obj["status"] = {"phase": "Unknown"}
    assert interpret(POD, obj, strict=True).phases == ("Undefined",)


def test_custom_condition_field_names() -> None:
    definition = define(
        """
apiVersion: wlmap.dev/v1alpha1
kind: WorkloadMap
metadata: {name: custom-fields}
spec:
  structureDefinition:
    rootComponent:
      name: x
      kind: {group: example.com, version: v1, kind: Thing}
      statusDefinition:
        conditionsDefinition: {path: .status.states, typeFieldName: name, statusFieldName: value}
        statusMappings:
          running: [{byConditions: [{type: Serving, status: "yes"}]}]
"""
    )
    obj = {
        "apiVersion": "example.com/v1",
        "kind": "Thing",
        "status": {"states": [{"name": "Serving", "value": "yes"}]},
    }
    assert interpret(definition, obj, strict=True).phases == ("Running",)


def test_expression_errors_are_typed_and_located() -> None:
    definition = define(
        """
apiVersion: wlmap.dev/v1alpha1
kind: WorkloadMap
metadata: {name: failing-expression}
spec:
  structureDefinition:
    rootComponent:
      name: x
      kind: {group: example.com, version: v1, kind: Thing}
      statusDefinition:
        statusMappings:
          running: [{byExpression: {expression: '.status.count + "a"', expectedResult: "true"}}]
"""
    )
    obj = {"apiVersion": "example.com/v1", "kind": "Thing", "status": {"count": 1}}
    with pytest.raises(ExpressionError) as caught:
        interpret(definition, obj, strict=True)
    assert caught.value.definition == "failing-expression"
    assert caught.value.component == "x"
    assert caught.value.field is not None and caught.value.field.endswith(
        "running[0].byExpression.expression"
    )
    lenient = interpret(definition, obj)
    assert lenient.phases == ("Undefined",)
    assert any("cannot be added" in w for w in lenient.warnings)
