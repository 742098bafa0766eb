"""The top-level definition document (a Karta or a WorkloadMap) and its spec."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import ConfigDict

from wlmap.definitions._base import DefinitionModel
from wlmap.definitions.gang import OptimizationInstructions
from wlmap.definitions.gvk import GroupVersionKind
from wlmap.definitions.structure import ComponentDefinition, StructureDefinition

WLMAP_API_VERSION = "wlmap.dev/v1alpha1"
WLMAP_KIND = "WorkloadMap"
KARTA_API_VERSIONS = ("run.ai/v1alpha1", "optimization.nvidia.com/v1alpha1")
KARTA_KIND = "Karta"

ApiVersion = Literal["wlmap.dev/v1alpha1", "run.ai/v1alpha1", "optimization.nvidia.com/v1alpha1"]
Kind = Literal["WorkloadMap", "Karta"]


class DefinitionMetadata(DefinitionModel):
    """Object metadata of a definition; only ``name`` is used, the rest is kept as given."""

    model_config = ConfigDict(extra="allow")

    name: str = ""
    labels: dict[str, str] | None = None
    annotations: dict[str, str] | None = None


class DefinitionSpec(DefinitionModel):
    """What a definition says about a workload kind."""

    structure_definition: StructureDefinition
    optimization_instructions: OptimizationInstructions | None = None


class Definition(DefinitionModel):
    """One workload definition: the same spec whether written as a Karta or a WorkloadMap."""

    api_version: ApiVersion = "wlmap.dev/v1alpha1"
    kind: Kind = "WorkloadMap"
    metadata: DefinitionMetadata = DefinitionMetadata()
    spec: DefinitionSpec
    status: dict[str, Any] | None = None

    @property
    def name(self) -> str:
        """The definition's name, or a name derived from its root kind when it has none."""
        if self.metadata.name:
            return self.metadata.name
        return slug(self.root_gvk) if self.root_gvk else "<unnamed>"

    @property
    def root(self) -> ComponentDefinition:
        """The root component."""
        return self.spec.structure_definition.root_component

    @property
    def root_gvk(self) -> GroupVersionKind | None:
        """The GVK of the workload object this definition covers."""
        return self.root.kind

    def components(self) -> tuple[ComponentDefinition, ...]:
        """All components, root first, in definition order."""
        return self.spec.structure_definition.components()


def slug(gvk: GroupVersionKind) -> str:
    """The catalog name of a GVK: ``<group with dashes | core>-<kind>-<version>``."""
    group = gvk.group.replace(".", "-") if gvk.group else "core"
    return f"{group}-{gvk.kind.lower()}-{gvk.version}"
