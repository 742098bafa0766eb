"""Attributing pods to components, instances and replicas through the definition's selectors."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from wlmap.errors import ExpressionError
from wlmap.workload._issues import Issues
from wlmap.workload._keys import key_text
from wlmap.workload.compiled import CompiledDefinition, component_base
from wlmap.workload.structure import Instance


@dataclass(frozen=True)
class PodPlacement:
    """Where one pod belongs, or why it belongs nowhere."""

    name: str
    component: str | None
    instance: str | None
    replica: str | None
    ready: bool
    phase: str | None
    node: str | None
    reason: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        return {
            "name": self.name,
            "component": self.component,
            "instance": self.instance,
            "replica": self.replica,
            "ready": self.ready,
            "phase": self.phase,
            "node": self.node,
            "reason": self.reason,
        }


def attribute_pods(
    compiled: CompiledDefinition,
    instances: Mapping[str, list[Instance]],
    pods: Sequence[Mapping[str, Any]],
    issues: Issues,
) -> list[PodPlacement]:
    """One placement per pod, in input order; unclaimed pods have ``component`` None."""
    selectors = [
        n
        for n in compiled.order
        if (s := compiled.components[n].pod_selector) and s.component_type_selector is not None
    ]
    unselected = [
        n
        for n in compiled.pod_bearing
        if not ((s := compiled.components[n].pod_selector) and s.component_type_selector)
    ]
    return [_place(compiled, instances, pod, selectors, unselected, issues) for pod in pods]


def _place(
    compiled: CompiledDefinition,
    instances: Mapping[str, list[Instance]],
    pod: Mapping[str, Any],
    selectors: list[str],
    unselected: list[str],
    issues: Issues,
) -> PodPlacement:
    metadata = pod.get("metadata") or {}
    status = pod.get("status") or {}
    name = str(metadata.get("name", "<unnamed>"))
    ready = any(
        c.get("type") == "Ready" and c.get("status") == "True"
        for c in status.get("conditions") or ()
        if isinstance(c, Mapping)
    )
    phase, node = status.get("phase"), (pod.get("spec") or {}).get("nodeName")

    def placement(
        component: str | None,
        instance: str | None = None,
        replica: str | None = None,
        reason: str | None = None,
    ) -> PodPlacement:
        return PodPlacement(name, component, instance, replica, ready, phase, node, reason)

    try:
        matching = [n for n in selectors if _type_matches(compiled, n, pod)]
    except ExpressionError as exc:
        issues.report(exc)
        return placement(None, reason=f"selector failed: {exc.reason}")
    if matching:
        deepest = max(compiled.depth[n] for n in matching)
        component = next(n for n in matching if compiled.depth[n] == deepest)
    elif len(unselected) == 1:
        component = unselected[0]
    else:
        return placement(None, reason="no component selector matches the pod")
    try:
        instance = _instance(compiled, component, instances, pod)
        replica = _replica(compiled, component, pod)
    except ExpressionError as exc:
        issues.report(exc)
        return placement(None, reason=f"selector failed: {exc.reason}")
    except LookupError as exc:
        return placement(None, reason=str(exc.args[0]))
    return placement(component, instance, replica)


def _type_matches(compiled: CompiledDefinition, name: str, pod: Mapping[str, Any]) -> bool:
    selector = compiled.components[name].pod_selector
    assert selector is not None and selector.component_type_selector is not None
    wanted = selector.component_type_selector
    if wanted.match_labels:
        labels = (pod.get("metadata") or {}).get("labels") or {}
        if any(labels.get(k) != v for k, v in wanted.match_labels.items()):
            return False
    if wanted.key_path is None:
        return True
    expr = compiled.expr(
        f"{component_base(compiled, name)}.podSelector.componentTypeSelector.keyPath"
    )
    assert expr is not None
    outputs = [o for o in expr.all(pod) if o is not None]
    if wanted.value is None:
        return bool(outputs)
    return any(key_text(o) == wanted.value for o in outputs)


def _instance(
    compiled: CompiledDefinition,
    name: str,
    instances: Mapping[str, list[Instance]],
    pod: Mapping[str, Any],
) -> str | None:
    component = compiled.components[name]
    if component.instance_id_path is None:
        return None
    expr = compiled.expr(
        f"{component_base(compiled, name)}.podSelector.componentInstanceSelector.idPath"
    )
    if expr is None:
        return None
    value = expr.first(pod)
    known = {i.instance for i in instances.get(name, ())}
    text = key_text(value) if value is not None else None
    if text is None or text not in known:
        raise LookupError(
            f"pod names instance {text!r} of {name!r}, which the workload does not have"
        )
    return text


def _replica(compiled: CompiledDefinition, name: str, pod: Mapping[str, Any]) -> str | None:
    for candidate in (name, *compiled.ancestors(name)):
        selector = compiled.components[candidate].pod_selector
        if selector is not None and selector.replica_selector is not None:
            expr = compiled.expr(
                f"{component_base(compiled, candidate)}.podSelector.replicaSelector.keyPath"
            )
            value = expr.first(pod) if expr else None
            return key_text(value) if value not in (None, "") else None
    return None
