"""Every metric family the exporter writes, in the order it writes them.

The table is the one list of names, types, help lines and label names: the writers look
their family up here, the docs test reads it, and the rules generator can too. Every
per-workload family starts with the identity labels (:data:`IDENTITY`).
"""

from __future__ import annotations

from wlmap.metrics.exposition import Family

__all__ = [
    "EXPORTER",
    "IDENTITY",
    "NODE",
    "USAGE",
    "WORKLOAD",
    "all_families",
    "node_family",
]

IDENTITY = ("namespace", "workload", "kind", "group")
"""The labels that name a workload on each of its series (group is "" for the core group)."""

_C = ("component",)


def _w(name: str, kind: str, help_: str, extra: tuple[str, ...] = ()) -> Family:
    return Family(f"wlmap_{name}", "counter" if kind == "c" else "gauge", help_, IDENTITY + extra)


WORKLOAD: tuple[Family, ...] = (
    _w(
        "workload_info",
        "g",
        "A workload wlmap interprets (1), with its API version, definition and team.",
        ("version", "definition", "team"),
    ),
    _w("workload_components", "g", "Component instances of the workload."),
    _w(
        "workload_state",
        "g",
        "The workload's shared state: 1 for the current one, 0 for the others.",
        ("state",),
    ),
    _w(
        "workload_component_pods_desired",
        "g",
        "Pods the component asks for at desired replicas.",
        _C,
    ),
    _w("workload_component_pods_ready", "g", "Pods of the component that are Ready.", _C),
    _w(
        "workload_component_gpus_requested",
        "g",
        "GPUs the component's pods request (fractional shares as fractions, DRA GPUs included).",
        _C,
    ),
    _w(
        "workload_component_mig_devices_requested",
        "g",
        "MIG devices the component's pods request, by profile.",
        (*_C, "profile"),
    ),
    _w(
        "workload_component_dra_devices_requested",
        "g",
        "DRA devices other than whole GPUs the component's claims request, by device class.",
        (*_C, "device_class"),
    ),
    _w(
        "workload_component_cpu_cores_requested",
        "g",
        "CPU cores the component's pods request.",
        _C,
    ),
    _w(
        "workload_component_memory_bytes_requested",
        "g",
        "Memory bytes the component's pods request.",
        _C,
    ),
    _w("workload_gpus_requested", "g", "GPUs the workload's pods request in total."),
    _w("workload_cpu_cores_requested", "g", "CPU cores the workload's pods request in total."),
    _w(
        "workload_memory_bytes_requested",
        "g",
        "Memory bytes the workload's pods request in total.",
    ),
    _w(
        "workload_gang_min_member",
        "g",
        "Pods of the gang that must be placed together.",
        ("gang",),
    ),
    _w(
        "workload_gang_members_scheduled",
        "g",
        "Pods of the gang bound to a node.",
        ("gang",),
    ),
    _w(
        "workload_gang_waiting_since_timestamp_seconds",
        "g",
        "Unix time the gang began to wait for its minimum (present only while it waits).",
        ("gang",),
    ),
    _w(
        "workload_gang_waiting_reason",
        "g",
        "Why the gang waits (1; present only while it waits).",
        ("gang", "reason"),
    ),
    Family(
        "wlmap_pod_workload_info",
        "gauge",
        "A pod container's workload, component and team (1); joins dcgm-exporter's series.",
        ("namespace", "pod", "container", "workload", "kind", "group", "component", "team"),
    ),
    Family(
        "wlmap_pod_gpus",
        "gauge",
        "GPUs the pod container holds (fractions as fractions, MIG slices as their share).",
        ("namespace", "pod", "container"),
    ),
)
"""The families written per workload (and per pod container for the last two)."""

USAGE: tuple[Family, ...] = (
    Family(
        "wlmap_namespace_gpu_seconds_total",
        "counter",
        "GPU-seconds pods of the namespace held devices for (shares as their share).",
        ("namespace",),
    ),
    Family(
        "wlmap_team_gpu_seconds_total",
        "counter",
        "GPU-seconds pods of the team held devices for (shares as their share).",
        ("team",),
    ),
    Family(
        "wlmap_namespace_gpus_held",
        "gauge",
        "GPUs the namespace's started, unfinished pods hold now.",
        ("namespace",),
    ),
    Family("wlmap_team_gpus_held", "gauge", "GPUs the team's pods hold now.", ("team",)),
)
"""GPU usage per namespace and team."""

_NODE_FAMILIES = (
    ("node_gpus_allocatable", "GPUs the node offers to pods."),
    ("node_gpus_allocated", "GPUs that unfinished pods bound to the node hold."),
    ("node_gpus_free", "GPUs of the node no pod holds."),
    (
        "node_gpus_free_fragmented",
        "Free GPUs of the node that the pods' own shapes cannot use (the FGD measure).",
    ),
)


def node_family(name: str, domain_labels: tuple[str, ...]) -> Family:
    """A per-node family with the node label and one label per topology domain key."""
    help_ = dict(_NODE_FAMILIES)[name]
    return Family(f"wlmap_{name}", "gauge", help_, ("node", *domain_labels))


NODE: tuple[str, ...] = tuple(name for name, _ in _NODE_FAMILIES)
"""The per-node family names (without ``wlmap_``); their labels depend on the domain keys."""

EXPORTER: tuple[Family, ...] = (
    Family(
        "wlmap_exporter_cache_synced",
        "gauge",
        "1 once the watches have listed everything; until then no other series is served.",
    ),
    Family(
        "wlmap_definition_evaluation_errors_total",
        "counter",
        "Interpretations a definition failed in whole or part (an error or an evaluation limit).",
        ("definition",),
    ),
    Family(
        "wlmap_exporter_components_dropped_total",
        "counter",
        "Component instances left out because a workload had more than the cap.",
    ),
    Family(
        "wlmap_exporter_scrape_duration_seconds",
        "gauge",
        "Seconds the previous scrape took to render.",
    ),
)
"""The exporter's own health."""


def all_families(domain_labels: tuple[str, ...] = ()) -> tuple[Family, ...]:
    """Every family, in exposition order, with the node families' domain labels."""
    nodes = tuple(node_family(name, domain_labels) for name in NODE)
    return (*WORKLOAD, *USAGE, *nodes, *EXPORTER)
