"""The placement gate: which pods the placement controller holds, and the webhook that
holds them.

A pod is held by the scheduling gate ``wlmap.dev/placement`` (``spec.schedulingGates``):
kube-scheduler leaves a gated pod alone, and while it is gated its node affinity may be
narrowed (Kubernetes 1.27+, mutable pod scheduling directives). The gate can only be set
when the pod is created, so a mutating admission webhook served by the operator (the
operator's one webhook server, :mod:`wlmap.operator.core.webhook`; kopf keeps the
``MutatingWebhookConfiguration`` named ``wlmap.dev`` pointing at it) adds it to the pods
of opted-in workloads.

Opting in: the namespace's label or the workload's annotation ``wlmap.dev/placement:
enabled`` (either; ``disabled`` on the workload overrides its namespace). The workload is
found through the pod's owner chain in the operator's cache; when the chain is not known
yet (the Job's watch event not arrived when its first pod is created), the pod's own
annotation, copied from its template, counts as the workload's. The webhook fails open
(``failurePolicy: Ignore``): an operator that is down leaves pods ungated, never blocks
their creation.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

import kopf

from wlmap.operator.core.gate import ENABLED, GATE, OPT_IN, is_gated
from wlmap.operator.core.owners import complete_chain
from wlmap.operator.placing.state import PlacingState

log = logging.getLogger("wlmap.operator")


def opted_in(state: PlacingState, workload: Mapping[str, Any]) -> bool:
    """Whether placement is on for a workload: the feature is on, its namespace is served,
    and the workload or its namespace says ``enabled`` (the workload's ``disabled`` wins)."""
    meta = workload.get("metadata") or {}
    namespace = meta.get("namespace")
    if not state.settings.placement or not state.serves_namespace(namespace):
        return False
    own = (meta.get("annotations") or {}).get(OPT_IN)
    if own is not None:
        return bool(own == ENABLED)
    return state.namespace_labels.get(str(namespace), {}).get(OPT_IN) == ENABLED


async def should_gate(state: PlacingState, pod: Mapping[str, Any]) -> bool:
    """Whether a pod being created gets the gate: its top-level workload opted in (its
    pod annotation standing in for the workload while the chain is unknown)."""
    meta = pod.get("metadata") or {}
    if not meta.get("ownerReferences") or is_gated(pod):
        return False
    top: Mapping[str, Any] = pod
    if state.cache is not None:
        chain = await complete_chain(state.cache, {"kind": "Pod", "apiVersion": "v1", **pod})
        mapped = [
            o
            for o in chain
            if state.store.registry.find(str(o.get("apiVersion")), str(o.get("kind"))) is not None
        ]
        if mapped:
            top = mapped[-1]
            if not state.serves(top):
                return False
    return opted_in(state, {"metadata": {**meta, "annotations": _annotations(top)}})


def _annotations(obj: Mapping[str, Any]) -> dict[str, str]:
    return dict((obj.get("metadata") or {}).get("annotations") or {})


def register_webhook(registry: kopf.OperatorRegistry, state: PlacingState) -> None:
    """The mutating webhook that gates the pods of opted-in workloads at creation."""

    @kopf.on.mutate(
        "",
        "v1",
        "pods",
        id="placement-gate",
        operations=["CREATE"],
        ignore_failures=True,
        registry=registry,
    )
    async def gate(body: kopf.Body, patch: kopf.Patch, **_: Any) -> None:
        pod = dict(body)
        if await should_gate(state, pod):
            gates = list((pod.get("spec") or {}).get("schedulingGates") or ())
            patch.spec["schedulingGates"] = [*gates, {"name": GATE}]
