"""Every jq expression a definition holds, with where it is and what it is used for."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from enum import Enum

from wlmap.definitions.document import Definition
from wlmap.definitions.structure import ComponentDefinition


class Role(Enum):
    """What an expression is evaluated against, and whether it is written through."""

    OBJECT = "object"  # read from the workload object
    POD = "pod"  # read from a pod
    SPEC_WRITE = "spec"  # read from the workload and written back (pod template fields)
    SUSPEND_WRITE = "suspend"  # written to suspend or resume


@dataclass(frozen=True)
class ExpressionSite:
    """One jq expression in a definition."""

    path: str
    text: str
    role: Role
    component: str | None


# where a definition says which instances start after which
STAGES_PATH = "spec.optimizationInstructions.gangScheduling.podGroup.stages.startsAfterPath"

FRAGMENT_FIELDS = (
    "schedulerNamePath",
    "labelsPath",
    "annotationsPath",
    "resourcesPath",
    "resourceClaimsPath",
    "podAffinityPath",
    "nodeAffinityPath",
    "containersPath",
    "containerPath",
    "priorityClassNamePath",
    "imagePath",
)


def component_path(definition: Definition, component: ComponentDefinition) -> str:
    """The field path of a component inside its definition."""
    structure = definition.spec.structure_definition
    if component is structure.root_component:
        return "spec.structureDefinition.rootComponent"
    index = next(i for i, c in enumerate(structure.child_components) if c is component)
    return f"spec.structureDefinition.childComponents[{index}]"


def expression_sites(definition: Definition) -> Iterator[ExpressionSite]:
    """Yield every expression of the definition, components first, then gang instructions."""
    for component in definition.components():
        yield from _component_sites(component_path(definition, component), component)
    for index, reference in enumerate(definition.spec.structure_definition.references):
        base = f"spec.structureDefinition.references[{index}]"
        for field, text in (
            ("nameExpression", reference.name_expression),
            ("namespaceExpression", reference.namespace_expression),
            ("labelSelectorExpression", reference.label_selector_expression),
        ):
            if text is not None:
                yield ExpressionSite(f"{base}.{field}", text, Role.OBJECT, None)
    gang = definition.spec.optimization_instructions
    groups = gang.gang_scheduling.pod_groups if gang and gang.gang_scheduling else None
    for gi, group in enumerate(groups or ()):
        for mi, member in enumerate(group.members):
            base = f"spec.optimizationInstructions.gangScheduling.podGroups[{gi}].members[{mi}]"
            for ki, key in enumerate(member.group_by_key_paths):
                yield ExpressionSite(f"{base}.groupByKeyPaths[{ki}]", key, Role.POD, None)
            for fi, flt in enumerate(member.filters):
                yield ExpressionSite(f"{base}.filters[{fi}]", flt, Role.POD, None)
    v2 = gang.gang_scheduling.pod_group if gang and gang.gang_scheduling else None
    if v2 is not None and v2.stages is not None:
        yield ExpressionSite(
            STAGES_PATH, v2.stages.starts_after_path, Role.OBJECT, v2.stages.component_name
        )


def _component_sites(base: str, component: ComponentDefinition) -> Iterator[ExpressionSite]:
    name = component.name

    def site(path: str, text: str | None, role: Role) -> Iterator[ExpressionSite]:
        if text is not None:
            yield ExpressionSite(f"{base}.{path}", text, role, name)

    spec = component.spec_definition
    if spec is not None:
        yield from site(
            "specDefinition.podTemplateSpecPath", spec.pod_template_spec_path, Role.SPEC_WRITE
        )
        yield from site("specDefinition.podSpecPath", spec.pod_spec_path, Role.SPEC_WRITE)
        yield from site("specDefinition.metadataPath", spec.metadata_path, Role.SPEC_WRITE)
        fragments = spec.fragmented_pod_spec_definition
        if fragments is not None:
            dumped = fragments.model_dump(by_alias=True)
            for field in FRAGMENT_FIELDS:
                yield from site(
                    f"specDefinition.fragmentedPodSpecDefinition.{field}",
                    dumped[field],
                    Role.SPEC_WRITE,
                )
    scale = component.scale_definition
    if scale is not None:
        yield from site("scaleDefinition.replicasPath", scale.replicas_path, Role.OBJECT)
        yield from site("scaleDefinition.minReplicasPath", scale.min_replicas_path, Role.OBJECT)
        yield from site("scaleDefinition.maxReplicasPath", scale.max_replicas_path, Role.OBJECT)
    yield from site("instanceIdPath", component.instance_id_path, Role.OBJECT)
    selector = component.pod_selector
    if selector is not None:
        if selector.component_type_selector is not None:
            yield from site(
                "podSelector.componentTypeSelector.keyPath",
                selector.component_type_selector.key_path,
                Role.POD,
            )
        if selector.component_instance_selector is not None:
            yield from site(
                "podSelector.componentInstanceSelector.idPath",
                selector.component_instance_selector.id_path,
                Role.POD,
            )
        if selector.replica_selector is not None:
            yield from site(
                "podSelector.replicaSelector.keyPath", selector.replica_selector.key_path, Role.POD
            )
    status = component.status_definition
    if status is not None:
        if status.phase_definition is not None:
            yield from site(
                "statusDefinition.phaseDefinition.path", status.phase_definition.path, Role.OBJECT
            )
        if status.conditions_definition is not None:
            yield from site(
                "statusDefinition.conditionsDefinition.path",
                status.conditions_definition.path,
                Role.OBJECT,
            )
        for field, _, matchers in status.status_mappings.declared():
            for mi, matcher in enumerate(matchers):
                if matcher.by_expression is not None:
                    yield from site(
                        f"statusDefinition.statusMappings.{field}[{mi}].byExpression.expression",
                        matcher.by_expression.expression,
                        Role.OBJECT,
                    )
    suspend = component.suspend_definition
    if suspend is not None:
        for label, actions in (
            ("suspendActions", suspend.suspend_actions),
            ("resumeActions", suspend.resume_actions),
        ):
            for ai, action in enumerate(actions):
                yield from site(
                    f"suspendDefinition.{label}[{ai}].path", action.path, Role.SUSPEND_WRITE
                )
