"""Which workloads the operator serves: opt-in by namespace, never the system's.

A namespace is served when it is listed (``WLMAP_NAMESPACES``) and/or its labels match the
namespace selector (``WLMAP_NAMESPACE_SELECTOR``; ``wlmap.dev/serve=true`` when no
namespace is listed), and it is not a system namespace (``kube-system``, ``kube-public``,
``kube-node-lease``, the operator's own). In a served namespace:

- workloads of the AI kinds the definitions cover are served;
- the built-in kinds of ``apps``, ``batch`` and the core group (Deployments, StatefulSets,
  Jobs, CronJobs) only when the workload or its namespace carries ``wlmap.dev/gang=true``:
  most of them are web servers and batch helpers for which a gang only holds capacity;
- DaemonSets never: one pod per node is not a gang;
- a workload labelled ``wlmap.dev/gang=false`` never; and when a workload selector is set
  (``WLMAP_WORKLOAD_SELECTOR``), only workloads that match it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from wlmap.sources.selectors import Requirement, matches, parse_selector

SERVE_LABEL = "wlmap.dev/serve"
DEFAULT_NAMESPACE_SELECTOR = f"{SERVE_LABEL}=true"
GANG_LABEL = "wlmap.dev/gang"
SYSTEM_NAMESPACES = frozenset({"kube-system", "kube-public", "kube-node-lease"})
CORE_GROUPS = frozenset({"", "apps", "batch"})
NEVER_SERVED_KINDS = frozenset({("apps", "DaemonSet")})
# kinds some definition makes a root that are never top-level workloads (read below one)
NOT_TOP_LEVEL_KINDS = frozenset({("", "Pod"), ("apps", "ReplicaSet")})


@dataclass(frozen=True)
class ServedScope:
    """The namespaces and workloads the operator serves (see the module docstring)."""

    namespaces: frozenset[str]
    namespace_selector: tuple[Requirement, ...] | None
    workload_selector: tuple[Requirement, ...] | None
    excluded: frozenset[str]

    def namespace_served(self, name: str | None, labels: Mapping[str, str] | None) -> bool:
        """Whether a namespace is served, given its labels (None: not known yet)."""
        if not name or name in self.excluded:
            return False
        if self.namespaces and name not in self.namespaces:
            return False
        if self.namespace_selector is None:
            return True
        return labels is not None and matches(labels, list(self.namespace_selector))

    def serves(self, obj: Mapping[str, Any], namespace_labels: Mapping[str, str] | None) -> bool:
        """Whether a workload is served, given its namespace's labels."""
        meta = obj.get("metadata") or {}
        if not self.namespace_served(meta.get("namespace"), namespace_labels):
            return False
        group = str(obj.get("apiVersion") or "").rpartition("/")[0]
        if (group, obj.get("kind")) in NEVER_SERVED_KINDS:
            return False
        labels = meta.get("labels") or {}
        if labels.get(GANG_LABEL) == "false":
            return False
        if self.workload_selector is not None and not matches(labels, list(self.workload_selector)):
            return False
        if group in CORE_GROUPS:
            return "true" in (labels.get(GANG_LABEL), (namespace_labels or {}).get(GANG_LABEL))
        return True


__all__ = [
    "CORE_GROUPS",
    "DEFAULT_NAMESPACE_SELECTOR",
    "GANG_LABEL",
    "NEVER_SERVED_KINDS",
    "NOT_TOP_LEVEL_KINDS",
    "SERVE_LABEL",
    "SYSTEM_NAMESPACES",
    "Requirement",
    "ServedScope",
    "matches",
    "parse_selector",
]
