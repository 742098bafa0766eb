"""Validation rules about the component tree, selectors, status and gang instructions."""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterator

from wlmap.definitions.document import Definition
from wlmap.definitions.expressions import component_path
from wlmap.definitions.gang import Topology
from wlmap.definitions.gvk import GroupVersionKind
from wlmap.definitions.status import VARIANT_STATES
from wlmap.definitions.structure import ComponentDefinition
from wlmap.errors import Problem

_ROOT = "spec.structureDefinition.rootComponent"
_GANG = "spec.optimizationInstructions.gangScheduling"
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_KIND = re.compile(r"[A-Z][A-Za-z0-9]*")


def structure_problems(definition: Definition) -> Iterator[Problem]:
    """Every structural problem of a definition (jq expressions are checked elsewhere)."""
    name = definition.name
    components = definition.components()
    names = Counter(c.name for c in components)
    for component in components:
        where = component_path(definition, component)
        if not component.name:
            yield Problem(name, f"{where}.name", "a component needs a non-empty name")
        elif names[component.name] > 1:
            yield Problem(
                name,
                f"{where}.name",
                "component names must be unique across root and children",
                component.name,
            )
        yield from _component_problems(name, where, component)
    yield from _root_problems(definition)
    yield from _ownership_problems(definition)
    yield from _additional_kind_problems(definition)
    yield from _reference_problems(definition)
    yield from _gang_problems(definition)


def _root_problems(definition: Definition) -> Iterator[Problem]:
    name, root = definition.name, definition.root
    if root.kind is None:
        yield Problem(
            name,
            f"{_ROOT}.kind",
            "the root component needs a kind (group, version, kind)",
            root.name,
        )
    else:
        yield from _gvk_problems(name, f"{_ROOT}.kind", root.kind, root.name, root=True)
    if root.owner_ref:
        yield Problem(
            name, f"{_ROOT}.ownerRef", "the root component cannot have an ownerRef", root.name
        )
    if root.status_definition is None:
        yield Problem(
            name,
            f"{_ROOT}.statusDefinition",
            "the root component needs a statusDefinition",
            root.name,
        )


def _gvk_problems(
    name: str, where: str, gvk: GroupVersionKind, component: str | None, *, root: bool = False
) -> Iterator[Problem]:
    if not gvk.version:
        yield Problem(name, f"{where}.version", "version must not be empty", component)
    if not gvk.kind:
        yield Problem(name, f"{where}.kind", "kind must not be empty", component)
    if root and not gvk.group and gvk.kind != "Pod":
        yield Problem(
            name,
            f"{where}.group",
            f"group must not be empty for kind {gvk.kind!r} (only Pod is allowed in the core group "
            "as a root)",
            component,
        )


def _component_problems(name: str, where: str, component: ComponentDefinition) -> Iterator[Problem]:
    cname = component.name or None
    if component.kind is not None:
        yield from _gvk_problems(name, f"{where}.kind", component.kind, cname)
    spec = component.spec_definition
    if spec is not None and len(spec.shapes()) > 1:
        yield Problem(
            name,
            f"{where}.specDefinition",
            f"set exactly one of podTemplateSpecPath, podSpecPath (+metadataPath), "
            f"fragmentedPodSpecDefinition; found {', '.join(spec.shapes())}",
            cname,
        )
    selector = component.pod_selector
    has_instance_selector = (
        selector is not None and selector.component_instance_selector is not None
    )
    if component.instance_id_path is not None and not has_instance_selector:
        yield Problem(
            name,
            f"{where}.podSelector.componentInstanceSelector",
            "instanceIdPath needs podSelector.componentInstanceSelector to attribute pods to instances",
            cname,
        )
    if has_instance_selector and component.instance_id_path is None:
        yield Problem(
            name,
            f"{where}.instanceIdPath",
            "podSelector.componentInstanceSelector needs an instanceIdPath listing the instances",
            cname,
        )
    type_selector = selector.component_type_selector if selector else None
    if type_selector is not None:
        tpath = f"{where}.podSelector.componentTypeSelector"
        if type_selector.key_path is None and not type_selector.match_labels:
            yield Problem(name, tpath, "set keyPath or matchLabels (non-empty)", cname)
        if type_selector.value is not None and type_selector.key_path is None:
            yield Problem(name, f"{tpath}.value", "value needs keyPath", cname)
        if type_selector.key_path == "":
            yield Problem(name, f"{tpath}.keyPath", "keyPath must not be empty", cname)
    yield from _status_problems(name, where, component)
    yield from _suspend_problems(name, where, component)


def _status_problems(name: str, where: str, component: ComponentDefinition) -> Iterator[Problem]:
    status = component.status_definition
    if status is None:
        return
    mappings = f"{where}.statusDefinition.statusMappings"
    for field, state, matchers in status.status_mappings.declared():
        if field in VARIANT_STATES:
            yield Problem(
                name,
                f"{mappings}.{field}",
                f"{field!r} is a state of the pending/progressing variant of the format; "
                f"its matchers are read as {state.value}",
                component.name,
                "warning",
            )
        for index, matcher in enumerate(matchers):
            mpath = f"{mappings}.{field}[{index}]"
            if matcher.is_empty():
                yield Problem(
                    name,
                    mpath,
                    "an empty matcher would match every object; set byPhase, byConditions or "
                    "byExpression",
                    component.name,
                )
            if matcher.by_phase is not None and status.phase_definition is None:
                yield Problem(
                    name,
                    f"{mpath}.byPhase",
                    "byPhase needs statusDefinition.phaseDefinition to read the phase from",
                    component.name,
                )
            if matcher.by_conditions and status.conditions_definition is None:
                yield Problem(
                    name,
                    f"{mpath}.byConditions",
                    "byConditions needs statusDefinition.conditionsDefinition to read conditions from",
                    component.name,
                )


def _suspend_problems(name: str, where: str, component: ComponentDefinition) -> Iterator[Problem]:
    suspend = component.suspend_definition
    if suspend is None:
        return
    for label, actions in (
        ("suspendActions", suspend.suspend_actions),
        ("resumeActions", suspend.resume_actions),
    ):
        if not actions:
            yield Problem(
                name,
                f"{where}.suspendDefinition.{label}",
                "needs at least one action",
                component.name,
            )
        for index, action in enumerate(actions):
            try:
                json.loads(action.value)
            except ValueError:
                yield Problem(
                    name,
                    f"{where}.suspendDefinition.{label}[{index}].value",
                    f'value must be JSON-encoded (e.g. "true", "0", \'"paused"\'); got {action.value!r}',
                    component.name,
                )


def _ownership_problems(definition: Definition) -> Iterator[Problem]:
    name = definition.name
    structure = definition.spec.structure_definition
    known = {c.name for c in definition.components()}
    parents: dict[str, str] = {}
    resolved = True
    for index, child in enumerate(structure.child_components):
        where = f"spec.structureDefinition.childComponents[{index}].ownerRef"
        if not child.owner_ref:
            resolved = False
            yield Problem(
                name, where, "a child component needs an ownerRef naming its parent", child.name
            )
        elif child.owner_ref not in known:
            resolved = False
            yield Problem(
                name,
                where,
                f"ownerRef {child.owner_ref!r} names no component (known: {', '.join(sorted(known))})",
                child.name,
            )
        else:
            parents[child.name] = child.owner_ref
    if not resolved:
        return
    root = structure.root_component.name
    for index, child in enumerate(structure.child_components):
        seen = {child.name}
        current = parents.get(child.name)
        while current is not None and current != root:
            if current in seen:
                yield Problem(
                    name,
                    f"spec.structureDefinition.childComponents[{index}].ownerRef",
                    "ownership cycle: this component's owner chain never reaches the root",
                    child.name,
                )
                break
            seen.add(current)
            current = parents.get(current)


def _additional_kind_problems(definition: Definition) -> Iterator[Problem]:
    seen: set[tuple[str, str]] = set()
    for index, gvk in enumerate(definition.spec.structure_definition.additional_child_kinds):
        where = f"spec.structureDefinition.additionalChildKinds[{index}]"
        yield from _gvk_problems(definition.name, where, gvk, None)
        if (gvk.group, gvk.kind) in seen:
            yield Problem(
                definition.name, where, f"{gvk.kind}.{gvk.group or 'core'} is listed twice"
            )
        seen.add((gvk.group, gvk.kind))


def _reference_problems(definition: Definition) -> Iterator[Problem]:
    names = Counter(r.name for r in definition.spec.structure_definition.references)
    for index, reference in enumerate(definition.spec.structure_definition.references):
        where = f"spec.structureDefinition.references[{index}]"
        if not _IDENTIFIER.fullmatch(reference.name):
            yield Problem(
                definition.name,
                f"{where}.name",
                f"{reference.name!r} is not usable as a jq variable; use letters, digits and _",
            )
        elif names[reference.name] > 1:
            yield Problem(
                definition.name, f"{where}.name", f"reference {reference.name!r} is declared twice"
            )
        yield from _gvk_problems(definition.name, f"{where}.kind", reference.kind, None)
        if reference.kind.kind and not _KIND.fullmatch(reference.kind.kind):
            yield Problem(
                definition.name,
                f"{where}.kind.kind",
                f"{reference.kind.kind!r} is not a kind name; expected the API's CamelCase "
                "kind, such as PodClique",
            )
        if reference.selects_many and reference.name_expression is not None:
            yield Problem(
                definition.name,
                f"{where}.nameExpression",
                "a reference either names one object (nameExpression) or selects many "
                "(ownedByWorkload, labelSelectorExpression), not both",
            )
        elif not reference.selects_many and reference.name_expression is None:
            yield Problem(
                definition.name,
                where,
                "a reference needs nameExpression (one object), or ownedByWorkload: true "
                "and/or labelSelectorExpression (every matching object)",
                reference.name,
            )


def _gang_problems(definition: Definition) -> Iterator[Problem]:
    name = definition.name
    instructions = definition.spec.optimization_instructions
    gang = instructions.gang_scheduling if instructions else None
    if gang is None:
        return
    known = {c.name for c in definition.components()}
    group_names = Counter(g.name for g in gang.pod_groups or ())
    for gi, group in enumerate(gang.pod_groups or ()):
        gpath = f"{_GANG}.podGroups[{gi}]"
        if group_names[group.name] > 1:
            yield Problem(name, f"{gpath}.name", f"pod group {group.name!r} is defined twice")
        members = Counter(m.component_name for m in group.members)
        if not group.members:
            yield Problem(name, f"{gpath}.members", "a pod group needs at least one member")
        for mi, member in enumerate(group.members):
            mpath = f"{gpath}.members[{mi}].componentName"
            if member.component_name not in known:
                yield Problem(name, mpath, f"{member.component_name!r} names no component")
            elif members[member.component_name] > 1:
                yield Problem(name, mpath, f"{member.component_name!r} is a member twice")
    if gang.pod_group is not None:
        ppath = f"{_GANG}.podGroup"
        yield from _topology_problems(name, f"{ppath}.topology", gang.pod_group.topology)
        subs = Counter(s.component_name for s in gang.pod_group.sub_groups)
        for si, sub in enumerate(gang.pod_group.sub_groups):
            spath = f"{ppath}.subGroups[{si}]"
            if sub.component_name not in known:
                yield Problem(
                    name, f"{spath}.componentName", f"{sub.component_name!r} names no component"
                )
            elif subs[sub.component_name] > 1:
                yield Problem(
                    name, f"{spath}.componentName", f"{sub.component_name!r} is a subgroup twice"
                )
            yield from _topology_problems(name, f"{spath}.topology", sub.topology)
        stages = gang.pod_group.stages
        if stages is not None and stages.component_name not in known:
            yield Problem(
                name,
                f"{ppath}.stages.componentName",
                f"{stages.component_name!r} names no component",
            )


def _topology_problems(name: str, where: str, topology: Topology | None) -> Iterator[Problem]:
    if topology is not None and not (
        topology.required_topology_level or topology.preferred_topology_level
    ):
        yield Problem(name, where, "set requiredTopologyLevel or preferredTopologyLevel")
