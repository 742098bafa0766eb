"""Each validation rule: one failing definition, the problem located where the user must look."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tests.unit.definitions.samples import child, root, sample
from wlmap.definitions import definition_from_mapping, validate_definition
from wlmap.errors import DefinitionError, Problem

CHILD0 = "spec.structureDefinition.childComponents[0]"
ROOT = "spec.structureDefinition.rootComponent"
GANG = "spec.optimizationInstructions.gangScheduling"


def problems_of(doc: dict[str, Any]) -> list[Problem]:
    with pytest.raises(DefinitionError) as caught:
        definition_from_mapping(doc)
    return list(caught.value.problems)


def test_the_sample_is_valid() -> None:
    definition = definition_from_mapping(sample())
    assert validate_definition(definition) == []


def mutate(change: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
    doc = sample()
    change(doc)
    return doc


RULES: list[tuple[str, Callable[[dict[str, Any]], None], str, str]] = [
    (
        "duplicate component names",
        lambda d: child(d).update(name="set"),
        f"{CHILD0}.name",
        "unique",
    ),
    ("root without kind", lambda d: root(d).pop("kind"), f"{ROOT}.kind", "needs a kind"),
    (
        "root with empty group",
        lambda d: root(d)["kind"].update(group=""),
        f"{ROOT}.kind.group",
        "group must not be empty",
    ),
    (
        "root with empty version",
        lambda d: root(d)["kind"].update(version=""),
        f"{ROOT}.kind.version",
        "version must not be empty",
    ),
    ("root with ownerRef", lambda d: root(d).update(ownerRef="job"), f"{ROOT}.ownerRef", "cannot"),
    (
        "root without statusDefinition",
        lambda d: root(d).pop("statusDefinition"),
        f"{ROOT}.statusDefinition",
        "needs a statusDefinition",
    ),
    ("empty component name", lambda d: child(d).update(name=""), f"{CHILD0}.name", "non-empty"),
    (
        "two spec shapes",
        lambda d: child(d)["specDefinition"].update(podSpecPath=".spec.x"),
        f"{CHILD0}.specDefinition",
        "exactly one",
    ),
    (
        "instanceIdPath without instance selector",
        lambda d: child(d)["podSelector"].pop("componentInstanceSelector"),
        f"{CHILD0}.podSelector.componentInstanceSelector",
        "instanceIdPath needs",
    ),
    (
        "instance selector without instanceIdPath",
        lambda d: child(d).pop("instanceIdPath"),
        f"{CHILD0}.instanceIdPath",
        "needs an instanceIdPath",
    ),
    (
        "child without ownerRef",
        lambda d: child(d).pop("ownerRef"),
        f"{CHILD0}.ownerRef",
        "needs an ownerRef",
    ),
    (
        "ownerRef to nothing",
        lambda d: child(d).update(ownerRef="ghost"),
        f"{CHILD0}.ownerRef",
        "'ghost' names no component",
    ),
    (
        "gang member that does not exist",
        lambda d: d["spec"]["optimizationInstructions"]["gangScheduling"]["podGroups"][0][
            "members"
        ][0].update(componentName="ghost"),
        f"{GANG}.podGroups[0].members[0].componentName",
        "names no component",
    ),
    (
        "subgroup that does not exist",
        lambda d: d["spec"]["optimizationInstructions"]["gangScheduling"]["podGroup"]["subGroups"][
            0
        ].update(componentName="ghost"),
        f"{GANG}.podGroup.subGroups[0].componentName",
        "names no component",
    ),
    (
        "byPhase without phaseDefinition",
        lambda d: root(d)["statusDefinition"].pop("phaseDefinition"),
        f"{ROOT}.statusDefinition.statusMappings.running[0].byPhase",
        "needs statusDefinition.phaseDefinition",
    ),
    (
        "byConditions without conditionsDefinition",
        lambda d: root(d)["statusDefinition"].pop("conditionsDefinition"),
        f"{ROOT}.statusDefinition.statusMappings.completed[0].byConditions",
        "needs statusDefinition.conditionsDefinition",
    ),
    (
        "empty matcher",
        lambda d: root(d)["statusDefinition"]["statusMappings"].update(failed=[{}]),
        f"{ROOT}.statusDefinition.statusMappings.failed[0]",
        "would match every object",
    ),
    (
        "suspend value that is not JSON",
        lambda d: root(d)["suspendDefinition"]["suspendActions"][0].update(value="yes please"),
        f"{ROOT}.suspendDefinition.suspendActions[0].value",
        "JSON-encoded",
    ),
    (
        "suspend path that is not assignable",
        lambda d: root(d)["suspendDefinition"]["suspendActions"][0].update(
            path=".spec.suspend // false"
        ),
        f"{ROOT}.suspendDefinition.suspendActions[0].path",
        "assignable",
    ),
    (
        "jq syntax error",
        lambda d: child(d)["scaleDefinition"].update(
            replicasPath=".spec.replicatedJobs[].replicas |"
        ),
        f"{CHILD0}.scaleDefinition.replicasPath",
        "syntax error",
    ),
    (
        "jq that libjq cannot compile",
        lambda d: child(d)["scaleDefinition"].update(replicasPath=".spec | no_such_function"),
        f"{CHILD0}.scaleDefinition.replicasPath",
        "no_such_function",
    ),
    (
        "jq reading the environment",
        lambda d: child(d)["scaleDefinition"].update(replicasPath="env.HOME"),
        f"{CHILD0}.scaleDefinition.replicasPath",
        "unsafe",
    ),
    (
        "jq generating forever",
        lambda d: child(d)["scaleDefinition"].update(replicasPath="[repeat(1)] | length"),
        f"{CHILD0}.scaleDefinition.replicasPath",
        "unsafe",
    ),
    (
        "assignment in a read path",
        lambda d: root(d)["statusDefinition"]["statusMappings"].update(
            failed=[
                {"byExpression": {"expression": ".spec.suspend = true", "expectedResult": "true"}}
            ]
        ),
        f"{ROOT}.statusDefinition.statusMappings.failed[0].byExpression.expression",
        "unsafe",
    ),
    (
        "del in a pod selector",
        lambda d: child(d)["podSelector"]["componentTypeSelector"].update(keyPath="del(.metadata)"),
        f"{CHILD0}.podSelector.componentTypeSelector.keyPath",
        "unsafe",
    ),
    (
        "type selector with neither keyPath nor labels",
        lambda d: child(d)["podSelector"].update(componentTypeSelector={"value": "x"}),
        f"{CHILD0}.podSelector.componentTypeSelector",
        "set keyPath or matchLabels",
    ),
    (
        "duplicate pod group",
        lambda d: d["spec"]["optimizationInstructions"]["gangScheduling"]["podGroups"].append(
            {"name": "all", "members": [{"componentName": "job"}]}
        ),
        f"{GANG}.podGroups[0].name",
        "defined twice",
    ),
    (
        "topology without a level",
        lambda d: d["spec"]["optimizationInstructions"]["gangScheduling"]["podGroup"].update(
            topology={"topologyName": "dc"}
        ),
        f"{GANG}.podGroup.topology",
        "requiredTopologyLevel or preferredTopologyLevel",
    ),
    (
        "additional child kinds listed twice",
        lambda d: d["spec"]["structureDefinition"].update(
            additionalChildKinds=[
                {"group": "batch", "version": "v1", "kind": "Job"},
                {"group": "batch", "version": "v1", "kind": "Job"},
            ]
        ),
        "spec.structureDefinition.additionalChildKinds[1]",
        "listed twice",
    ),
    (
        "variable no reference declares",
        lambda d: child(d)["scaleDefinition"].update(replicasPath="$runtime.spec.replicas"),
        f"{CHILD0}.scaleDefinition.replicasPath",
        "no entry of structureDefinition.references declares",
    ),
    (
        "reference name that is not an identifier",
        lambda d: d["spec"]["structureDefinition"].update(
            references=[
                {
                    "name": "my-runtime",
                    "kind": {"group": "x.io", "version": "v1", "kind": "R"},
                    "nameExpression": ".spec.runtime",
                }
            ]
        ),
        "spec.structureDefinition.references[0].name",
        "not usable as a jq variable",
    ),
    (
        "reference kind that is not a kind name",
        lambda d: _reference(
            d, kind={"group": "grove.io", "version": "v1alpha1", "kind": "pod clique"}
        ),
        "spec.structureDefinition.references[0].kind.kind",
        "not a kind name",
    ),
    (
        "reference that names one object and selects many",
        lambda d: _reference(d, nameExpression=".spec.runtime"),
        "spec.structureDefinition.references[0].nameExpression",
        "not both",
    ),
    (
        "reference that neither names nor selects",
        lambda d: _reference(d, ownedByWorkload=False, labelSelectorExpression=None),
        "spec.structureDefinition.references[0]",
        "needs nameExpression",
    ),
    (
        "label selector expression that is not jq",
        lambda d: _reference(d, labelSelectorExpression='{"a": .metadata.name'),
        "spec.structureDefinition.references[0].labelSelectorExpression",
        "jq syntax error",
    ),
    (
        "unknown field",
        lambda d: root(d).update(replicaz=".spec.x"),
        f"{ROOT}.replicaz",
        "unknown field",
    ),
    (
        "missing required field",
        lambda d: root(d)["statusDefinition"].pop("statusMappings"),
        f"{ROOT}.statusDefinition.statusMappings",
        "required",
    ),
]


def _reference(doc: dict[str, Any], **changes: Any) -> None:
    """Give the sample one selecting reference, changed by ``changes`` (None removes)."""
    reference: dict[str, Any] = {
        "name": "children",
        "kind": {"group": "grove.io", "version": "v1alpha1", "kind": "PodClique"},
        "ownedByWorkload": True,
        "labelSelectorExpression": '{"app.kubernetes.io/part-of": .metadata.name}',
    }
    reference.update(changes)
    doc["spec"]["structureDefinition"]["references"] = [
        {k: v for k, v in reference.items() if v is not None}
    ]


@pytest.mark.parametrize(("title", "change", "where", "says"), RULES, ids=[r[0] for r in RULES])
def test_rule(title: str, change: Callable[[dict[str, Any]], None], where: str, says: str) -> None:
    found = problems_of(mutate(change))
    located = [p for p in found if p.path == where]
    assert located, f"{title}: no problem at {where}; got {[str(p) for p in found]}"
    assert any(says in p.message for p in located), [p.message for p in located]
    assert all(p.definition == "sample" for p in found)


def test_cycle_is_reported() -> None:
    doc = sample()
    children = doc["spec"]["structureDefinition"]["childComponents"]
    children.append({"name": "a", "ownerRef": "b"})
    children.append({"name": "b", "ownerRef": "a"})
    found = problems_of(doc)
    assert any("cycle" in p.message and p.component == "a" for p in found)


def test_every_problem_is_reported_at_once() -> None:
    doc = sample()
    root(doc).pop("statusDefinition")
    child(doc).update(ownerRef="ghost")
    child(doc)["scaleDefinition"].update(replicasPath="env")
    paths = {p.path for p in problems_of(doc)}
    assert {
        f"{ROOT}.statusDefinition",
        f"{CHILD0}.ownerRef",
        f"{CHILD0}.scaleDefinition.replicasPath",
    } <= paths


def test_read_only_spec_projection_is_a_warning_not_an_error() -> None:
    doc = sample()
    child(doc)["specDefinition"] = {"podSpecPath": ".spec.replicatedJobs[] | {containers: .x}"}
    definition = definition_from_mapping(doc)
    warnings = [p for p in validate_definition(definition) if p.severity == "warning"]
    assert [p.path for p in warnings] == [f"{CHILD0}.specDefinition.podSpecPath"]
    assert "read-only projection" in warnings[0].message


def test_pod_is_the_only_core_root() -> None:
    doc = sample()
    root(doc)["kind"] = {"group": "", "version": "v1", "kind": "Pod"}
    assert definition_from_mapping(doc).root_gvk is not None
