"""Models of ``structureDefinition``: components, where their pods are, scale and selectors."""

from __future__ import annotations

from pydantic import Field

from wlmap.definitions._base import DefinitionModel
from wlmap.definitions.gvk import GroupVersionKind
from wlmap.definitions.status import StatusDefinition


class FragmentedPodSpecDefinition(DefinitionModel):
    """Per-field jq paths for workloads whose pod fields are scattered over the object."""

    scheduler_name_path: str | None = None
    labels_path: str | None = None
    annotations_path: str | None = None
    resources_path: str | None = None
    resource_claims_path: str | None = None
    pod_affinity_path: str | None = None
    node_affinity_path: str | None = None
    containers_path: str | None = None
    container_path: str | None = None
    priority_class_name_path: str | None = None
    image_path: str | None = None


class SpecDefinition(DefinitionModel):
    """Where a component's pods are described: exactly one of three shapes."""

    pod_template_spec_path: str | None = None
    pod_spec_path: str | None = None
    metadata_path: str | None = None
    fragmented_pod_spec_definition: FragmentedPodSpecDefinition | None = None

    def shapes(self) -> list[str]:
        """Names of the spec shapes this definition sets (valid when at most one)."""
        found = []
        if self.pod_template_spec_path is not None:
            found.append("podTemplateSpecPath")
        if self.pod_spec_path is not None or self.metadata_path is not None:
            found.append("podSpecPath")
        if self.fragmented_pod_spec_definition is not None:
            found.append("fragmentedPodSpecDefinition")
        return found


class ScaleDefinition(DefinitionModel):
    """jq paths to the replica counts of a component (per parent unit)."""

    replicas_path: str | None = None
    min_replicas_path: str | None = None
    max_replicas_path: str | None = None


class ComponentTypeSelector(DefinitionModel):
    """Which component a pod plays: by a jq key (equality or existence) and/or labels."""

    key_path: str | None = None
    value: str | None = None
    match_labels: dict[str, str] | None = None


class ComponentInstanceSelector(DefinitionModel):
    """jq on the pod returning the id of the component instance it belongs to."""

    id_path: str


class ReplicaSelector(DefinitionModel):
    """jq on the pod returning the replica index of an identical sub-structure."""

    key_path: str


class PodSelector(DefinitionModel):
    """How pods are attributed to this component, its instances and replicas."""

    component_type_selector: ComponentTypeSelector | None = None
    component_instance_selector: ComponentInstanceSelector | None = None
    replica_selector: ReplicaSelector | None = None


class SuspendAction(DefinitionModel):
    """One write: set the value at ``path`` (a jq path) to the JSON-encoded ``value``."""

    path: str
    value: str


class SuspendDefinition(DefinitionModel):
    """Ordered writes that suspend and resume the workload natively."""

    suspend_actions: tuple[SuspendAction, ...]
    resume_actions: tuple[SuspendAction, ...]


class ComponentDefinition(DefinitionModel):
    """One role of a workload: the root object or a child (possibly kind-less) component."""

    name: str
    kind: GroupVersionKind | None = None
    owner_ref: str | None = None
    spec_definition: SpecDefinition | None = None
    scale_definition: ScaleDefinition | None = None
    status_definition: StatusDefinition | None = None
    suspend_definition: SuspendDefinition | None = None
    instance_id_path: str | None = None
    pod_selector: PodSelector | None = None


class Reference(DefinitionModel):
    """Other objects the workload takes part of its description from (wlmap extension).

    The caller fetches them (wlmap never does I/O while interpreting) and passes them in.
    A reference names one object (``nameExpression``): expressions read it as ``$<name>``,
    ``null`` when it was not provided; TrainJob, for instance, takes its pod templates from
    its TrainingRuntime. Or it selects every object of its kind in the namespace that the
    workload controls (``ownedByWorkload``) and/or whose labels match ``labelSelectorExpression``
    (jq on the workload giving a map of label to value): ``$<name>`` is then the list of them,
    empty when none was provided. PodCliqueSet, for instance, reads its PodCliques' conditions.
    """

    name: str
    kind: GroupVersionKind
    name_expression: str | None = None
    namespace_expression: str | None = None
    owned_by_workload: bool = False
    label_selector_expression: str | None = None

    @property
    def selects_many(self) -> bool:
        """The reference selects a list of objects rather than naming one."""
        return self.owned_by_workload or self.label_selector_expression is not None


class StructureDefinition(DefinitionModel):
    """The component tree of a workload kind."""

    root_component: ComponentDefinition
    child_components: tuple[ComponentDefinition, ...] = ()
    additional_child_kinds: tuple[GroupVersionKind, ...] = Field(default=())
    references: tuple[Reference, ...] = ()

    def components(self) -> tuple[ComponentDefinition, ...]:
        """The root followed by the children, in definition order."""
        return (self.root_component, *self.child_components)
