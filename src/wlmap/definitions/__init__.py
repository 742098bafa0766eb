"""Workload definitions: the models, reading them from files, and validating them.

Names are imported on first use (PEP 562): importing one module of this package (the
GVK, the registry) does not load the validation rules and the jq engine.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from wlmap.definitions.document import (
        KARTA_API_VERSIONS,
        KARTA_KIND,
        WLMAP_API_VERSION,
        WLMAP_KIND,
        Definition,
        DefinitionMetadata,
        DefinitionSpec,
        slug,
    )
    from wlmap.definitions.expressions import ExpressionSite, Role, expression_sites
    from wlmap.definitions.gang import (
        GangScheduling,
        LegacyPodGroup,
        OptimizationInstructions,
        PodGroupDefinition,
        PodGroupMember,
        Stages,
        SubGroup,
        Topology,
    )
    from wlmap.definitions.gvk import GroupVersionKind
    from wlmap.definitions.loading import (
        definition_from_mapping,
        load_definitions,
        parse_definitions,
        parse_documents,
    )
    from wlmap.definitions.status import (
        STATUS_ORDER,
        ConditionMatcher,
        ConditionsDefinition,
        ExpressionMatcher,
        GenericStatus,
        PhaseDefinition,
        StatusDefinition,
        StatusMappings,
        StatusMatcher,
    )
    from wlmap.definitions.structure import (
        ComponentDefinition,
        ComponentInstanceSelector,
        ComponentTypeSelector,
        FragmentedPodSpecDefinition,
        PodSelector,
        ReplicaSelector,
        ScaleDefinition,
        SpecDefinition,
        StructureDefinition,
        SuspendAction,
        SuspendDefinition,
    )
    from wlmap.definitions.validation import validate_definition

_HOMES = {
    **dict.fromkeys(
        (
            "KARTA_API_VERSIONS",
            "KARTA_KIND",
            "WLMAP_API_VERSION",
            "WLMAP_KIND",
            "Definition",
            "DefinitionMetadata",
            "DefinitionSpec",
            "slug",
        ),
        "wlmap.definitions.document",
    ),
    **dict.fromkeys(
        ("ExpressionSite", "Role", "expression_sites"), "wlmap.definitions.expressions"
    ),
    **dict.fromkeys(
        (
            "GangScheduling",
            "LegacyPodGroup",
            "OptimizationInstructions",
            "PodGroupDefinition",
            "PodGroupMember",
            "Stages",
            "SubGroup",
            "Topology",
        ),
        "wlmap.definitions.gang",
    ),
    **dict.fromkeys(("GroupVersionKind",), "wlmap.definitions.gvk"),
    **dict.fromkeys(
        ("definition_from_mapping", "load_definitions", "parse_definitions", "parse_documents"),
        "wlmap.definitions.loading",
    ),
    **dict.fromkeys(
        (
            "STATUS_ORDER",
            "ConditionMatcher",
            "ConditionsDefinition",
            "ExpressionMatcher",
            "GenericStatus",
            "PhaseDefinition",
            "StatusDefinition",
            "StatusMappings",
            "StatusMatcher",
        ),
        "wlmap.definitions.status",
    ),
    **dict.fromkeys(
        (
            "ComponentDefinition",
            "ComponentInstanceSelector",
            "ComponentTypeSelector",
            "FragmentedPodSpecDefinition",
            "PodSelector",
            "ReplicaSelector",
            "ScaleDefinition",
            "SpecDefinition",
            "StructureDefinition",
            "SuspendAction",
            "SuspendDefinition",
        ),
        "wlmap.definitions.structure",
    ),
    **dict.fromkeys(("validate_definition",), "wlmap.definitions.validation"),
}

__all__ = [
    "KARTA_API_VERSIONS",
    "KARTA_KIND",
    "STATUS_ORDER",
    "WLMAP_API_VERSION",
    "WLMAP_KIND",
    "ComponentDefinition",
    "ComponentInstanceSelector",
    "ComponentTypeSelector",
    "ConditionMatcher",
    "ConditionsDefinition",
    "Definition",
    "DefinitionMetadata",
    "DefinitionSpec",
    "ExpressionMatcher",
    "ExpressionSite",
    "FragmentedPodSpecDefinition",
    "GangScheduling",
    "GenericStatus",
    "GroupVersionKind",
    "LegacyPodGroup",
    "OptimizationInstructions",
    "PhaseDefinition",
    "PodGroupDefinition",
    "PodGroupMember",
    "PodSelector",
    "ReplicaSelector",
    "Role",
    "ScaleDefinition",
    "SpecDefinition",
    "Stages",
    "StatusDefinition",
    "StatusMappings",
    "StatusMatcher",
    "StructureDefinition",
    "SubGroup",
    "SuspendAction",
    "SuspendDefinition",
    "Topology",
    "definition_from_mapping",
    "expression_sites",
    "load_definitions",
    "parse_definitions",
    "parse_documents",
    "slug",
    "validate_definition",
]


if not TYPE_CHECKING:  # type checkers see the imports above; unknown names stay errors

    def __getattr__(name: str) -> Any:
        home = _HOMES.get(name)
        if home is None:
            raise AttributeError(f"module 'wlmap.definitions' has no attribute {name!r}")
        value = getattr(import_module(home), name)
        globals()[name] = value  # later lookups skip this function
        return value

    def __dir__() -> list[str]:
        return sorted({*globals(), *__all__})
