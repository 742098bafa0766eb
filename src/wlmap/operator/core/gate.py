"""The placement gate's vocabulary, which gang sync, the placement controller and the
deployment files all read: the scheduling gate that holds a pod, the opt-in label and
annotation, and the webhook configuration that sets the gate."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["DISABLED", "ENABLED", "GATE", "OPT_IN", "WEBHOOK_CONFIGURATION", "is_gated"]

GATE = "wlmap.dev/placement"
OPT_IN = "wlmap.dev/placement"  # label on a namespace, annotation on a workload
ENABLED = "enabled"
DISABLED = "disabled"
WEBHOOK_CONFIGURATION = "wlmap.dev"


def is_gated(pod: Mapping[str, Any]) -> bool:
    """Whether a pod carries the placement gate."""
    gates = (pod.get("spec") or {}).get("schedulingGates") or ()
    return any(isinstance(g, Mapping) and g.get("name") == GATE for g in gates)
