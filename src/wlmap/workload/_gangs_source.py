"""A generated function per definition giving an ordinary object's gang groups.

It gives what :func:`wlmap.workload.gangs.gang_groups` gives for an object met alone (no
pods): each gang's minimum pods counted from the instances. The counting rule is
:func:`wlmap.workload.counts.subtree_minimum`'s: own minimum (minReplicas, else replicas)
times the children's sum; a pod-bearing component without a count counts 1 per instance
with a template (0 without); a grouping component without a count passes its children's
sum through; a child keyed like its parent counts, under each parent instance, only its
instances of the same id. An instance's minimum depends only on its own subtree, so the
lines count every component once, deepest first, and each gang adds up the subtrees it
names.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from wlmap.workload.compiled import CompiledDefinition
from wlmap.workload.gangs import GangGroup, gang_plan, legacy_members
from wlmap.workload.structure import Scale

# an instance as the ordinary path reads it: (id, template, scale)
Row = tuple[str | None, Any, Scale]
GangsReader = Callable[[Mapping[str, list[Row]]], tuple[GangGroup, ...]]


def gangs_reader(compiled: CompiledDefinition) -> GangsReader:
    """The gang reader generated for ``compiled`` (the ordinary path keeps it)."""
    names: dict[str, Any] = {"Group": GangGroup, "own": _own}
    source = "\n".join(_Lines(compiled, names).build()) + "\n"
    exec(compile(source, f"<gangs of {compiled.name}>", "exec"), names)
    reader: GangsReader = names["gangs"]
    return reader


class _Lines:
    """The lines of ``gangs(instances)`` for one definition, and the names they use."""

    def __init__(self, compiled: CompiledDefinition, names: dict[str, Any]) -> None:
        self.compiled = compiled
        self.names = names
        self.index = {name: i for i, name in enumerate(compiled.order)}
        self.lines = ["def gangs(instances):"]

    def build(self) -> list[str]:
        plan = gang_plan(self.compiled)
        add = self.lines.append
        if plan is None:
            add("    return ()")
            return self.lines
        for name in self.compiled.order:
            add(f"    c{self.index[name]} = instances.get({name!r}, ())")
        for name in sorted(self.compiled.order, key=lambda n: -self.compiled.depth[n]):
            self._count(name)
        v2, legacy = plan
        found = []
        if v2 is not None:
            subs = [
                f"Group({sub.component!r}, t{self.index[sub.component]},"
                f" {self._present(sub.pod_bearing)}, None, None,"
                f" {self._constant(sub.topology)}, (), 'podGroup')"
                for sub in v2.subs
            ]
            add(f"    subs = ({''.join(s + ', ' for s in subs)})")
            least = "sum([g.min_member for g in subs])" if subs else f"t{self.index[v2.root]}"
            found.append(
                f"Group({v2.definition.name!r}, {least}, {self._present(v2.pod_bearing)},"
                f" None, None, {self._constant(v2.definition.topology)}, subs, 'podGroup')"
            )
        for position, group in enumerate(legacy):
            members, per_unit = legacy_members(self.compiled, group, position)
            least = " + ".join(
                self._per_unit(m) if unit else f"t{self.index[m]}"
                for m, unit in zip(members, per_unit, strict=True)
            )
            found.append(
                f"Group({group.name!r}, {least or '0'}, {members!r}, None, None, None, (),"
                " 'podGroups')"
            )
        add(f"    return ({''.join(f + ', ' for f in found)})")
        return self.lines

    def _constant(self, value: Any) -> str:
        name = f"K{len(self.names)}"
        self.names[name] = value
        return name

    def _present(self, names: tuple[str, ...]) -> str:
        """The pod-bearing components among ``names`` that the object has instances of."""
        parts = [f"(({n!r},) if c{self.index[n]} else ())" for n in names]
        return " + ".join(parts) if parts else "()"

    def _bears(self, name: str) -> bool:
        return name in self.compiled.pod_bearing

    def _below(self, name: str) -> str:
        """The children's minimum under instance ``x`` (scoped to its id where keyed so)."""
        parts = []
        for child in self.compiled.children.get(name, ()):
            i = self.index[child]
            parts.append(f"(b{i}[x[0]] if x[0] in b{i} else t{i})")
        return " + ".join(parts)

    def _count(self, name: str) -> None:
        """Lines setting ``t<i>`` (the component's minimum over its instances) and
        ``b<i>`` (the same per instance id; an id of None never scopes)."""
        i = self.index[name]
        below = self._below(name)
        least = f"{below} if own is None else own * ({below})" if below else "own or 0"
        fallback = "(1 if x[1] is not None else 0)" if self._bears(name) else "None"
        self.lines += [
            f"    t{i} = 0",
            f"    b{i} = {{}}",
            f"    for x in c{i}:",
            "        s = x[2]",
            "        own = s.min_replicas",
            "        if own is None:",
            f"            own = s.replicas if s.replicas is not None else {fallback}",
            f"        least = {least}",
            f"        t{i} += least",
        ]
        if self.compiled.parent.get(name) is not None:  # only a child is looked up by id
            self.lines += [
                "        if x[0] is not None:",
                f"            b{i}[x[0]] = b{i}.get(x[0], 0) + least",
            ]

    def _per_unit(self, name: str) -> str:
        """One replica of the component (a gang per replica, as LeaderWorkerSet groups
        are), as an expression."""
        i = self.index[name]
        below = self._below(name)
        if below:
            return f"sum([{below} for x in c{i}])"
        return f"sum([min(own(x, {self._bears(name)}) or 0, 1) for x in c{i}])"


def _own(item: tuple[str | None, Any, Scale], bears_pods: bool) -> int | None:
    """An instance's own minimum, None for a grouping one without a count."""
    _, template, scale = item
    if scale.min_replicas is not None:
        return scale.min_replicas
    if scale.replicas is not None:
        return scale.replicas
    if bears_pods:
        return 1 if template is not None else 0
    return None
