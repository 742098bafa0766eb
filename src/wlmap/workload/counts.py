"""Minimum pods of component subtrees (what gangs need), and whether an instance runs pods."""

from __future__ import annotations

from collections.abc import Mapping

from wlmap.workload.compiled import CompiledDefinition
from wlmap.workload.structure import Instance

# Subtree minimums already worked out for one object: (component, instance, per unit).
Minimums = dict[tuple[str, str | None, bool], int]


def subtree_minimum(
    compiled: CompiledDefinition,
    instances: Mapping[str, list[Instance]],
    component: str,
    instance_id: str | None = None,
    *,
    per_unit: bool = False,
    cache: Minimums | None = None,
) -> int:
    """Minimum pods of a component's subtree, counted from the component down.

    Own minimum (minReplicas, else replicas) times the children's sum; a component with
    no children counts its own minimum; a pod-bearing component without a count counts 1
    per instance; a grouping component without a count passes its children's sum through;
    an explicit zero stays zero.
    ``instance_id`` narrows the top component to one instance; ``per_unit`` counts one
    replica of the top component (a gang per replica, as LeaderWorkerSet groups are).
    ``cache`` keeps results for one object (gangs ask for the same subtrees repeatedly).
    """
    return tree_minimum(
        component_tree(compiled),
        instances,
        component,
        instance_id,
        per_unit,
        {} if cache is None else cache,
    )


# Per component: its children and whether it bears pods.
Tree = Mapping[str, tuple[tuple[str, ...], bool]]


def component_tree(compiled: CompiledDefinition) -> Tree:
    """The component tree as :func:`subtree_minimum` walks it (once per definition)."""
    tree: Tree | None = compiled.memo.get("minimum tree")
    if tree is None:
        tree = compiled.memo["minimum tree"] = {
            name: (compiled.children.get(name, ()), name in compiled.pod_bearing)
            for name in compiled.order
        }
    return tree


_LEAF: tuple[tuple[str, ...], bool] = ((), False)


def tree_minimum(
    tree: Tree,
    instances: Mapping[str, list[Instance]],
    component: str,
    instance_id: str | None,
    per_unit: bool,
    cache: Minimums,
) -> int:
    """:func:`subtree_minimum` over a tree from :func:`component_tree`, all arguments
    given (the gangs of one object ask for several subtrees)."""
    key = (component, instance_id, per_unit)
    known = cache.get(key)
    if known is not None:
        return known
    child_names, bears_pods = tree.get(component, _LEAF)
    total = 0
    for item in instances.get(component, ()):
        if instance_id is not None and item.instance != instance_id:
            continue
        # Children keyed like their parent (a JobSet's replicatedJob and its pods) count
        # only the instance of the same id; other children count all their instances.
        children = 0
        for child in child_names:
            scoped = None
            if item.instance is not None:
                for candidate in instances.get(child, ()):
                    if candidate.instance == item.instance:
                        scoped = item.instance
                        break
            children += tree_minimum(tree, instances, child, scoped, False, cache)
        # minReplicas, else replicas; a pod-bearing component without either counts 1
        # (none when it runs no pods), a grouping one passes its children through
        scale = item.scale
        own: int | None
        if scale.min_replicas is not None:
            own = scale.min_replicas
        elif scale.replicas is not None:
            own = scale.replicas
        elif bears_pods:
            own = 1 if item.template is not None else 0
        else:
            own = None
        if per_unit:
            own = None if child_names else min(own or 0, 1)
        if own is None:
            total += children
        elif child_names:
            total += own * children
        else:
            total += own
    cache[key] = total
    return total


def runs_pods(instance: Instance) -> bool:
    """Whether a pod-bearing instance asks for pods: it has a pod template, or its scale
    gives an explicit count (the operator builds the pods from a default template, as
    KubeRay does for a RayJob's submitter). An optional role that is absent runs none."""
    scale = instance.scale
    return (
        instance.template is not None
        or scale.replicas is not None
        or scale.min_replicas is not None
    )
