"""The Grafana dashboard shipped with the exporter, written by code as plain JSON (no
Grafana library: the dashboard model is a documented JSON shape) so that its queries name
the exporter's series and the recording rules of :mod:`wlmap.metrics.rules`.

Rows: GPUs by team and namespace (held, requested, GPU-hours per day), utilisation per
workload and the idle ones, workload states and waiting gangs, node GPUs and fragmentation
per topology domain, and the exporter's own health.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from wlmap.metrics.node_series import DEFAULT_DOMAIN_KEYS, domain_label
from wlmap.metrics.rules import RuleSettings, duration

__all__ = ["UID", "dashboard", "render_dashboard"]

UID = "wlmap-workloads"
DATASOURCE = {"type": "prometheus", "uid": "${datasource}"}
SCOPE = 'namespace=~"$namespace", team=~"$team"'
WIDTH = 24


class _Layout:
    """Panels placed left to right in rows of the grid's 24 columns."""

    def __init__(self) -> None:
        self.panels: list[dict[str, Any]] = []
        self._x = 0
        self._y = 0
        self._height = 0

    def row(self, title: str) -> None:
        self._newline()
        self.panels.append(
            {
                "type": "row",
                "title": title,
                "collapsed": False,
                "id": len(self.panels) + 1,
                "gridPos": {"h": 1, "w": WIDTH, "x": 0, "y": self._y},
                "panels": [],
            }
        )
        self._y += 1

    def add(self, panel: dict[str, Any], width: int, height: int = 8) -> None:
        if self._x + width > WIDTH:
            self._newline()
        panel["id"] = len(self.panels) + 1
        panel["gridPos"] = {"h": height, "w": width, "x": self._x, "y": self._y}
        panel["datasource"] = DATASOURCE
        self.panels.append(panel)
        self._x += width
        self._height = max(self._height, height)

    def _newline(self) -> None:
        self._y += self._height
        self._x = 0
        self._height = 0


def _targets(*queries: tuple[str, str]) -> list[dict[str, Any]]:
    return [
        {"refId": chr(ord("A") + i), "expr": expr, "legendFormat": legend, "datasource": DATASOURCE}
        for i, (expr, legend) in enumerate(queries)
    ]


def _panel(
    kind: str, title: str, description: str, unit: str, *queries: tuple[str, str]
) -> dict[str, Any]:
    return {
        "type": kind,
        "title": title,
        "description": description,
        "fieldConfig": {"defaults": {"unit": unit}, "overrides": []},
        "options": {},
        "targets": _targets(*queries),
    }


def _table(title: str, description: str, unit: str, expr: str) -> dict[str, Any]:
    panel = _panel("table", title, description, unit, (expr, ""))
    panel["targets"][0].update({"format": "table", "instant": True})
    panel["transformations"] = [{"id": "organize", "options": {"excludeByName": {"Time": True}}}]
    return panel


def _variable(name: str, label: str, query: str) -> dict[str, Any]:
    return {
        "name": name,
        "label": label,
        "type": "query",
        "datasource": DATASOURCE,
        "query": {"query": query, "refId": name},
        "definition": query,
        "refresh": 2,
        "includeAll": True,
        "multi": True,
        "allValue": ".*",
        "current": {"selected": True, "text": ["All"], "value": ["$__all"]},
        "sort": 1,
    }


def _teams(layout: _Layout, window: str) -> None:
    layout.row("GPUs by team and namespace")
    layout.add(
        _panel(
            "timeseries",
            "GPUs held by team",
            "GPUs held by running pods (fractions and MIG slices as their share).",
            "short",
            ('sum by (team) (wlmap_team_gpus_held{team=~"$team"})', "{{team}}"),
        ),
        8,
    )
    layout.add(
        _panel(
            "timeseries",
            "GPUs held by namespace",
            "GPUs held by running pods, per namespace.",
            "short",
            (
                'sum by (namespace) (wlmap_namespace_gpus_held{namespace=~"$namespace"})',
                "{{namespace}}",
            ),
        ),
        8,
    )
    layout.add(
        _panel(
            "bargauge",
            f"GPU-hours by team, last {window}",
            "From the GPU-seconds counters, which survive exporter restarts.",
            "short",
            (f'sum by (team) (wlmap:team_gpu_hours:increase{window}{{team=~"$team"}})', "{{team}}"),
        ),
        8,
    )


def _utilisation(layout: _Layout, settings: RuleSettings) -> None:
    layout.row("GPU utilisation (dcgm-exporter joined to workloads)")
    layout.add(
        _panel(
            "timeseries",
            "GPU utilisation by workload",
            "Mean DCGM_FI_DEV_GPU_UTIL of the workload's GPUs.",
            "percentunit",
            (
                f"wlmap:workload_gpu_utilization:ratio{{{SCOPE}}}",
                "{{namespace}}/{{workload}}",
            ),
        ),
        12,
    )
    layout.add(
        _table(
            "Idle workloads now",
            f"Workloads whose GPUs are under {settings.idle_ratio * 100:g} % utilisation; "
            f"the alert fires after {duration(settings.idle_seconds)}.",
            "percentunit",
            f"wlmap:workload_gpu_utilization:ratio{{{SCOPE}}} < {settings.idle_ratio:g}",
        ),
        12,
    )
    layout.add(
        _panel(
            "timeseries",
            "GPU utilisation by component",
            "Mean DCGM_FI_DEV_GPU_UTIL of each component's GPUs.",
            "percentunit",
            (
                f"wlmap:workload_component_gpu_utilization:ratio{{{SCOPE}}}",
                "{{namespace}}/{{workload}} {{component}}",
            ),
        ),
        24,
    )


def _workloads(layout: _Layout) -> None:
    scope = 'namespace=~"$namespace"'
    layout.row("Workloads and gangs")
    layout.add(
        _panel(
            "piechart",
            "Workloads by state",
            "The shared state of every workload.",
            "short",
            (f"sum by (state) (wlmap_workload_state{{{scope}}} == 1)", "{{state}}"),
        ),
        8,
    )
    layout.add(
        _table(
            "Pods ready / desired by component",
            "Components whose pods are not all ready.",
            "short",
            f"wlmap_workload_component_pods_desired{{{scope}}}"
            f" - on(namespace, workload, kind, group, component)"
            f" wlmap_workload_component_pods_ready{{{scope}}} > 0",
        ),
        8,
    )
    layout.add(
        _table(
            "Waiting gangs",
            "Gangs not yet scheduled, how long they have waited (seconds).",
            "s",
            f"time() - wlmap_workload_gang_waiting_since_timestamp_seconds{{{scope}}}",
        ),
        8,
    )


def _nodes(layout: _Layout, keys: Sequence[str]) -> None:
    layout.row("Nodes and fragmentation")
    layout.add(
        _panel(
            "timeseries",
            "Cluster GPUs",
            "Allocatable, allocated and free GPUs, and the free ones the placement engine "
            "counts as fragmented.",
            "short",
            ("sum(wlmap_node_gpus_allocatable)", "allocatable"),
            ("sum(wlmap_node_gpus_allocated)", "allocated"),
            ("sum(wlmap_node_gpus_free)", "free"),
            ("sum(wlmap_node_gpus_free_fragmented)", "free, fragmented"),
        ),
        12,
    )
    for key in keys:
        label = domain_label(key)
        layout.add(
            _panel(
                "bargauge",
                f"Fragmented free GPUs by {key}",
                "Free GPUs on fragmented nodes, per domain.",
                "short",
                (
                    f'wlmap:domain_gpus_free_fragmented:sum{{domain_key="{key}"}}',
                    f"{{{{{label}}}}}",
                ),
            ),
            12,
        )


def _health(layout: _Layout) -> None:
    layout.row("Exporter")
    layout.add(
        _panel(
            "stat",
            "Caches synced",
            "1 once the watches listed the cluster.",
            "short",
            ("min(wlmap_exporter_cache_synced)", ""),
        ),
        6,
    )
    layout.add(
        _panel(
            "timeseries",
            "Definition evaluation errors",
            "Per definition, per 5 minutes.",
            "short",
            (
                "sum by (definition) (increase(wlmap_definition_evaluation_errors_total[5m]))",
                "{{definition}}",
            ),
        ),
        6,
    )
    layout.add(
        _panel(
            "timeseries",
            "Components dropped",
            "Components past the per-workload cap.",
            "short",
            ("sum(increase(wlmap_exporter_components_dropped_total[5m]))", "dropped"),
        ),
        6,
    )
    layout.add(
        _panel(
            "timeseries",
            "Scrape duration",
            "How long the exporter took to answer.",
            "s",
            ("max(wlmap_exporter_scrape_duration_seconds)", "{{instance}}"),
        ),
        6,
    )


def dashboard(settings: RuleSettings | None = None) -> dict[str, Any]:
    """The dashboard as Grafana imports it (a dashboard model, schema version 39)."""
    chosen = settings or RuleSettings()
    window = duration(chosen.gpu_hours_seconds)
    layout = _Layout()
    _teams(layout, window)
    _utilisation(layout, chosen)
    _workloads(layout)
    _nodes(layout, chosen.domain_keys or DEFAULT_DOMAIN_KEYS)
    _health(layout)
    return {
        "uid": UID,
        "title": "wlmap: AI workloads, GPUs and teams",
        "description": "Generated by `make metrics-files` from wlmap.metrics.dashboard.",
        "tags": ["wlmap", "gpu"],
        "schemaVersion": 39,
        "version": 1,
        "editable": True,
        "graphTooltip": 1,
        "time": {"from": "now-6h", "to": "now"},
        "refresh": "1m",
        "timezone": "",
        "templating": {
            "list": [
                {
                    "name": "datasource",
                    "label": "Data source",
                    "type": "datasource",
                    "query": "prometheus",
                    "current": {},
                },
                _variable("namespace", "Namespace", "label_values(wlmap_workload_info, namespace)"),
                _variable("team", "Team", "label_values(wlmap_workload_info, team)"),
            ]
        },
        "annotations": {"list": []},
        "links": [],
        "panels": layout.panels,
    }


def render_dashboard(settings: RuleSettings | None = None) -> str:
    """The dashboard as a JSON file (two-space indent, trailing newline)."""
    return json.dumps(dashboard(settings), indent=2, ensure_ascii=False) + "\n"
