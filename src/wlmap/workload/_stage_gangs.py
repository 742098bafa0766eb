"""The v2 ``podGroup`` split into one gang per start stage.

Each stage's gang holds the instances of the stage component that start together, with
their subtrees; pods of components outside that subtree (or not keyed like it) start
with the workload, so they join the first stage. A subgroup keeps, per stage, the part
of its subtree in that stage; a subgroup above the stage component (the whole workload)
counts the stage's instances, plus in the first stage whatever else it holds.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from wlmap.workload._gang_records import GangGroup, V2Plan
from wlmap.workload._stages import Stage
from wlmap.workload.compiled import CompiledDefinition
from wlmap.workload.counts import Minimums, Tree, tree_minimum
from wlmap.workload.pods import PodPlacement
from wlmap.workload.structure import Instance

Held = tuple[str, str | None]


def stage_gangs(
    compiled: CompiledDefinition,
    tree: Tree,
    instances: Mapping[str, list[Instance]],
    plan: V2Plan,
    stages: Sequence[Stage],
    component: str,
    placements: Sequence[PodPlacement] | None,
    cache: Minimums,
) -> list[GangGroup]:
    """One gang per stage, in start order, each keyed by its first instance's id."""
    counting = _Counting(compiled, tree, instances, stages, component, cache)
    holds = counting.holds(plan.pod_bearing)
    found = []
    for index, stage in enumerate(stages):
        held = holds[index]
        subs = []
        for sub in plan.subs:
            least = counting.minimum(sub.component, index)
            subs.append(
                GangGroup(
                    sub.component,
                    least,
                    tuple(n for n in sub.pod_bearing if any(h[0] == n for h in held)),
                    _pods(placements, held, compiled.subtree(sub.component)),
                    None,
                    sub.topology,
                    (),
                    "podGroup",
                    held,
                )
            )
        minimum = sum(s.min_member for s in subs) if subs else counting.minimum(plan.root, index)
        found.append(
            GangGroup(
                plan.definition.name,
                minimum,
                tuple(n for n in plan.pod_bearing if any(h[0] == n for h in held)),
                _pods(placements, held, compiled.subtree(plan.root)),
                (stage.ids[0],),
                plan.definition.topology,
                tuple(subs),
                "podGroup",
                held,
                stage.reason(component),
            )
        )
    return found


def _pods(
    placements: Sequence[PodPlacement] | None, held: tuple[Held, ...], subtree: Sequence[str]
) -> tuple[str, ...] | None:
    if placements is None:
        return None
    inside = set(subtree)
    wanted = set(held)
    return tuple(
        p.name for p in placements if p.component in inside and (p.component, p.instance) in wanted
    )


class _Counting:
    """Minimums of subtrees within one stage, for one object."""

    def __init__(
        self,
        compiled: CompiledDefinition,
        tree: Tree,
        instances: Mapping[str, list[Instance]],
        stages: Sequence[Stage],
        component: str,
        cache: Minimums,
    ) -> None:
        self.compiled = compiled
        self.tree = tree
        self.instances = instances
        self.stages = stages
        self.component = component
        self.cache = cache
        self.stage_of = {i: n for n, s in enumerate(stages) for i in s.ids}
        self.below = set(compiled.subtree(component))

    def _keyed(self, name: str) -> bool:
        """Whether ``name`` is the stage component or below it and keyed like it."""
        return name in self.below and any(
            i.instance in self.stage_of for i in self.instances.get(name, ())
        )

    def holds(self, pod_bearing: Sequence[str]) -> list[tuple[Held, ...]]:
        """Per stage, the pod-bearing component instances it holds."""
        found: list[list[Held]] = [[] for _ in self.stages]
        for name in pod_bearing:
            keyed = self._keyed(name)
            for item in self.instances.get(name, ()):
                stage = self.stage_of.get(item.instance or "", 0) if keyed else 0
                found[stage].append((name, item.instance))
        return [tuple(h) for h in found]

    def _stage_total(self, index: int) -> int:
        return sum(
            tree_minimum(self.tree, self.instances, self.component, i, False, self.cache)
            for i in self.stages[index].ids
        )

    def minimum(self, name: str, index: int) -> int:
        """The least pods of ``name``'s subtree that stage ``index`` needs."""
        if self._keyed(name):
            return sum(
                tree_minimum(self.tree, self.instances, name, i, False, self.cache)
                for i in self.stages[index].ids
            )
        if self.component in self.compiled.subtree(name):
            # above the stage component: its stage's share, and the rest with the first
            own = self._stage_total(index)
            if index == 0:
                whole = tree_minimum(self.tree, self.instances, name, None, False, self.cache)
                staged = sum(self._stage_total(i) for i in range(len(self.stages)))
                own += max(whole - staged, 0)
            return own
        # beside the stage component, or below it but not keyed like it: starts first
        if index:
            return 0
        return tree_minimum(self.tree, self.instances, name, None, False, self.cache)
