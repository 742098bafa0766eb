"""The metrics front end: every workload's pods, GPUs, state and gangs, nodes' free and
fragmented GPUs and GPU-seconds per namespace and team, as Prometheus series.

- :mod:`.index`: :class:`MetricsIndex`, fed per object, rendering the exposition;
- :mod:`.families`: every family's name, type, help and labels;
- :mod:`.exposition`: the text format (escaping, values);
- :mod:`.workload_series`, :mod:`.node_series`, :mod:`.pod_facts`, :mod:`.accounting`:
  what one workload, node and pod contribute, and the GPU-seconds sums.

A front end on top of :mod:`wlmap.app` (see docs/metrics.md); it imports nothing of the
operator, which imports it to serve the series from its caches. Names load on first use.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from wlmap.metrics.exposition import CONTENT_TYPE, Family, escape
    from wlmap.metrics.families import all_families
    from wlmap.metrics.index import (
        DEFAULT_COMPONENT_CAP,
        DEFAULT_TEAM_LABEL,
        Checkpoint,
        MetricsIndex,
    )
    from wlmap.metrics.node_series import DEFAULT_DOMAIN_KEYS, domain_label
    from wlmap.metrics.workload_series import STATES

_HOMES = {
    "CONTENT_TYPE": "wlmap.metrics.exposition",
    "Family": "wlmap.metrics.exposition",
    "escape": "wlmap.metrics.exposition",
    "all_families": "wlmap.metrics.families",
    "DEFAULT_COMPONENT_CAP": "wlmap.metrics.index",
    "DEFAULT_TEAM_LABEL": "wlmap.metrics.index",
    "Checkpoint": "wlmap.metrics.index",
    "MetricsIndex": "wlmap.metrics.index",
    "DEFAULT_DOMAIN_KEYS": "wlmap.metrics.node_series",
    "domain_label": "wlmap.metrics.node_series",
    "STATES": "wlmap.metrics.workload_series",
}

__all__ = [
    "CONTENT_TYPE",
    "DEFAULT_COMPONENT_CAP",
    "DEFAULT_DOMAIN_KEYS",
    "DEFAULT_TEAM_LABEL",
    "STATES",
    "Checkpoint",
    "Family",
    "MetricsIndex",
    "all_families",
    "domain_label",
    "escape",
]


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(home), name)
    globals()[name] = value
    return value
