"""Gang groups: which pods must be scheduled together, and how many at least."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

from wlmap.definitions.gang import LegacyPodGroup, PodGroupMember
from wlmap.errors import ExpressionError
from wlmap.workload._gang_records import GangGroup, SubGroupPlan, V2Plan
from wlmap.workload._issues import Issues
from wlmap.workload._keys import key_text
from wlmap.workload._stage_gangs import stage_gangs
from wlmap.workload._stages import Stage, read_stages
from wlmap.workload.compiled import CompiledDefinition
from wlmap.workload.counts import Minimums, Tree, component_tree, subtree_minimum, tree_minimum
from wlmap.workload.pods import PodPlacement
from wlmap.workload.structure import Instance

__all__ = [
    "GangGroup",
    "SubGroupPlan",
    "V2Plan",
    "gang_groups",
    "gang_plan",
    "legacy_members",
    "scheduled_gangs",
]

_LEGACY = "spec.optimizationInstructions.gangScheduling.podGroups"


def gang_groups(
    compiled: CompiledDefinition,
    instances: Mapping[str, list[Instance]],
    placements: Sequence[PodPlacement] | None,
    pods: Sequence[Mapping[str, Any]] | None,
    issues: Issues,
    obj: Mapping[str, Any] | None = None,
    variables: Mapping[str, Any] | None = None,
    stages: Sequence[Stage] | None = None,
) -> list[GangGroup]:
    """The workload's gang groups: the v2 ``podGroup`` first (one per start stage when
    the definition declares stages and ``obj`` is given, or ``stages`` read already),
    then legacy ``podGroups``."""
    plan = gang_plan(compiled)
    if plan is None:
        return []
    v2, legacy = plan
    found: list[GangGroup] = []
    cache: Minimums = {}
    tree = component_tree(compiled)
    if v2 is not None:
        declared = v2.definition.stages
        if stages is None and obj is not None and declared is not None:
            ids = [i.instance for i in instances.get(declared.component_name, ())]
            stages = read_stages(compiled, obj, ids, variables, issues)
        if stages is None or declared is None:
            found.append(_v2_group(compiled, tree, instances, v2, placements, cache))
        else:
            component = declared.component_name
            found.extend(
                stage_gangs(compiled, tree, instances, v2, stages, component, placements, cache)
            )
    for index, group in enumerate(legacy):
        if placements is None or pods is None:
            found.append(_static_legacy(compiled, tree, instances, group, index, cache))
        else:
            found.extend(
                _legacy_by_pods(compiled, instances, group, index, placements, pods, issues, cache)
            )
    return found


def scheduled_gangs(groups: Sequence[GangGroup]) -> list[GangGroup]:
    """The gangs a scheduler is given, one per real gang: the v2 ``podGroup`` when the
    definition has one (its legacy ``podGroups`` describe the same gangs for older
    readers), else the legacy groups.

    A gang or subgroup of no pods holds nothing together and is left out: the object
    lacks the roles it names (an empty JobSet, a service without multi-node groups).
    """
    preferred = [g for g in groups if g.source == "podGroup"] or list(groups)
    return [
        dataclasses.replace(g, sub_groups=tuple(s for s in g.sub_groups if s.min_member))
        if any(not s.min_member for s in g.sub_groups)
        else g
        for g in preferred
        if g.min_member
    ]


def gang_plan(
    compiled: CompiledDefinition,
) -> tuple[V2Plan | None, tuple[LegacyPodGroup, ...]] | None:
    """The gang definition prepared once: None when the definition declares no gangs."""
    if "gangs" in compiled.memo:
        known: tuple[V2Plan | None, tuple[LegacyPodGroup, ...]] | None = compiled.memo["gangs"]
        return known
    instructions = compiled.definition.spec.optimization_instructions
    gang = instructions.gang_scheduling if instructions else None
    plan = None
    if gang is not None:
        v2 = None
        if gang.pod_group is not None:
            v2 = V2Plan(
                gang.pod_group,
                tuple(
                    SubGroupPlan(
                        sub.component_name,
                        sub.topology,
                        _pod_bearing(compiled, compiled.subtree(sub.component_name)),
                    )
                    for sub in gang.pod_group.sub_groups
                ),
                _pod_bearing(compiled, compiled.order),
                compiled.definition.root.name,
            )
        plan = (v2, tuple(gang.pod_groups or ()))
    compiled.memo["gangs"] = plan
    return plan


def _pod_bearing(compiled: CompiledDefinition, names: Sequence[str]) -> tuple[str, ...]:
    return tuple(n for n in names if n in compiled.pod_bearing)


def _pods_in(
    compiled: CompiledDefinition, component: str, placements: Sequence[PodPlacement] | None
) -> tuple[str, ...] | None:
    if placements is None:
        return None
    subtree = set(compiled.subtree(component))
    return tuple(p.name for p in placements if p.component in subtree)


def _v2_group(
    compiled: CompiledDefinition,
    tree: Tree,
    instances: Mapping[str, list[Instance]],
    plan: V2Plan,
    placements: Sequence[PodPlacement] | None,
    cache: Minimums,
) -> GangGroup:
    subs = []
    minimum = 0
    for sub in plan.subs:
        least = tree_minimum(tree, instances, sub.component, None, False, cache)
        minimum += least
        subs.append(
            GangGroup(
                sub.component,
                least,
                # the pod-bearing components the object has instances of
                tuple([n for n in sub.pod_bearing if instances.get(n)]),
                _pods_in(compiled, sub.component, placements),
                None,
                sub.topology,
                (),
                "podGroup",
            )
        )
    if not subs:
        minimum = tree_minimum(tree, instances, plan.root, None, False, cache)
    return GangGroup(
        plan.definition.name,
        minimum,
        tuple([n for n in plan.pod_bearing if instances.get(n)]),
        _pods_in(compiled, plan.root, placements),
        None,
        plan.definition.topology,
        tuple(subs),
        "podGroup",
    )


def _static_legacy(
    compiled: CompiledDefinition,
    tree: Tree,
    instances: Mapping[str, list[Instance]],
    group: LegacyPodGroup,
    index: int,
    cache: Minimums,
) -> GangGroup:
    members, per_unit = legacy_members(compiled, group, index)
    minimum = 0
    for member, unit in zip(members, per_unit, strict=True):
        minimum += tree_minimum(tree, instances, member, None, unit, cache)
    return GangGroup(group.name, minimum, members, None, None, None, (), "podGroups")


def legacy_members(
    compiled: CompiledDefinition, group: LegacyPodGroup, index: int
) -> tuple[tuple[str, ...], tuple[bool, ...]]:
    """The group's member components, and whether each counts one replica (per definition)."""
    every: dict[int, tuple[tuple[str, ...], tuple[bool, ...]]] = compiled.memo.setdefault(
        "podGroups members", {}
    )
    known = every.get(index)
    if known is None:
        known = every[index] = (
            tuple(m.component_name for m in group.members),
            tuple(_per_unit(compiled, m) for m in group.members),
        )
    return known


def _per_unit(compiled: CompiledDefinition, member: PodGroupMember) -> bool:
    """A gang keyed by the member's own replica key is one replica of it (an LWS group)."""
    selector = compiled.components[member.component_name].pod_selector
    return (
        selector is not None
        and selector.replica_selector is not None
        and selector.replica_selector.key_path in member.group_by_key_paths
    )


def _legacy_by_pods(
    compiled: CompiledDefinition,
    instances: Mapping[str, list[Instance]],
    group: LegacyPodGroup,
    group_index: int,
    placements: Sequence[PodPlacement],
    pods: Sequence[Mapping[str, Any]],
    issues: Issues,
    cache: Minimums,
) -> list[GangGroup]:
    gangs: dict[tuple[str, ...], tuple[list[str], int, set[str]]] = {}
    for placement, pod in zip(placements, pods, strict=True):
        if placement.component is None:
            continue
        try:
            chosen = _effective_member(compiled, group, group_index, placement.component, pod)
            if chosen is None:
                continue
            member_index, member = chosen
            key = _keys(compiled, group_index, member_index, member, pod)
        except ExpressionError as exc:
            issues.report(exc)
            continue
        if key is None:
            continue
        narrowed = placement.instance if member.component_name == placement.component else None
        minimum = subtree_minimum(
            compiled,
            instances,
            member.component_name,
            narrowed,
            per_unit=_per_unit(compiled, member),
            cache=cache,
        )
        names, current, components = gangs.setdefault(key, ([], minimum, set()))
        names.append(placement.name)
        components.add(member.component_name)
        gangs[key] = (names, max(current, minimum), components)
    return [
        GangGroup(
            name="-".join((group.name, *key)),
            min_member=minimum,
            members=tuple(n for n in compiled.order if n in components),
            pods=tuple(names),
            key=key,
            source="podGroups",
        )
        for key, (names, minimum, components) in sorted(gangs.items())
    ]


def _effective_member(
    compiled: CompiledDefinition,
    group: LegacyPodGroup,
    group_index: int,
    component: str,
    pod: Mapping[str, Any],
) -> tuple[int, PodGroupMember] | None:
    """The most specific member for a pod's component (itself, then nearest ancestor)."""
    for candidate in (component, *compiled.ancestors(component)):
        for index, member in enumerate(group.members):
            if member.component_name != candidate:
                continue
            filters_pass = True
            for fi in range(len(member.filters)):
                expr = compiled.expr(f"{_LEGACY}[{group_index}].members[{index}].filters[{fi}]")
                if expr is None or expr.all(pod) != [True]:
                    filters_pass = False
                    break
            if filters_pass:
                return index, member
    return None


def _keys(
    compiled: CompiledDefinition,
    group_index: int,
    member_index: int,
    member: PodGroupMember,
    pod: Mapping[str, Any],
) -> tuple[str, ...] | None:
    keys = []
    for ki in range(len(member.group_by_key_paths)):
        expr = compiled.expr(
            f"{_LEGACY}[{group_index}].members[{member_index}].groupByKeyPaths[{ki}]"
        )
        outputs = expr.all(pod) if expr else []
        if len(outputs) != 1 or outputs[0] in (None, ""):
            return None
        keys.append(key_text(outputs[0]))
    return tuple(keys)
