"""The Prometheus rules shipped with the exporter, written by code so that the metric names
they read are the exporter's own and the thresholds can be set (tests use short ones).

Recording rules:

- GPU utilisation per workload and per component: dcgm-exporter's ``DCGM_FI_DEV_GPU_UTIL``
  (percent, one series per GPU with the ``namespace``, ``pod`` and ``container`` using it)
  joined to ``wlmap_pod_workload_info``, as a ratio from 0 to 1;
- GPU-hours per team over a day (and per namespace), from the GPU-seconds counters;
- free GPUs on fragmented nodes per topology domain, one rule per domain label.

Alerting rules: a workload whose GPUs stayed under a utilisation threshold for a window
(idle), a gang waiting longer than a threshold, a Degraded workload, definitions failing
to evaluate, and an exporter whose caches never synced.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import yaml

from wlmap.metrics.node_series import DEFAULT_DOMAIN_KEYS, domain_label

__all__ = [
    "RuleSettings",
    "duration",
    "render_rules",
    "rule_groups",
]

ID = "namespace, workload, kind, group"
JOIN = "namespace, pod, container"
_UNITS = (("d", 86400), ("h", 3600), ("m", 60), ("s", 1))


def duration(seconds: float) -> str:
    """A Prometheus duration for a whole number of seconds (90 → ``1m30s``).

    Raises:
        ValueError: not a positive whole number of seconds.
    """
    if seconds <= 0 or seconds != int(seconds):
        raise ValueError(
            f"a rule duration must be a positive whole number of seconds, not {seconds}"
        )
    left, parts = int(seconds), []
    for unit, size in _UNITS:
        if left >= size:
            parts.append(f"{left // size}{unit}")
            left %= size
    return "".join(parts)


@dataclass(frozen=True)
class RuleSettings:
    """The thresholds and windows of the rules.

    Attributes:
        idle_ratio: a workload's mean GPU utilisation (0 to 1) under which it is idle.
        idle_seconds: how long it must stay under ``idle_ratio`` before the alert fires.
        gang_wait_seconds: how long a gang may wait before the alert fires.
        degraded_seconds: how long a workload may stay Degraded before the alert fires.
        error_window_seconds: the window in which a definition evaluation error alerts.
        unsynced_seconds: how long the exporter may stay unsynced before the alert fires.
        gpu_hours_seconds: the window of the GPU-hours recording rules (a day).
        interval_seconds: how often the groups are evaluated.
        domain_keys: the node label keys of the topology domains, coarsest first.
    """

    idle_ratio: float = 0.05
    idle_seconds: int = 3600
    gang_wait_seconds: int = 900
    degraded_seconds: int = 900
    error_window_seconds: int = 600
    unsynced_seconds: int = 600
    gpu_hours_seconds: int = 86400
    interval_seconds: int = 60
    domain_keys: Sequence[str] = DEFAULT_DOMAIN_KEYS

    def __post_init__(self) -> None:
        if not 0 < self.idle_ratio <= 1:
            raise ValueError(f"idle_ratio is a utilisation from 0 to 1, not {self.idle_ratio}")


def _utilisation(by: str) -> str:
    return (
        f"avg by ({by}) (\n"
        f"  DCGM_FI_DEV_GPU_UTIL\n"
        f"  * on({JOIN}) group_left(workload, kind, group, component, team)\n"
        f"  wlmap_pod_workload_info\n"
        f") / 100"
    )


def _recording(settings: RuleSettings) -> dict[str, Any]:
    window = duration(settings.gpu_hours_seconds)
    rules: list[dict[str, Any]] = [
        {
            "record": "wlmap:workload_gpu_utilization:ratio",
            "expr": _utilisation(f"{ID}, team"),
        },
        {
            "record": "wlmap:workload_component_gpu_utilization:ratio",
            "expr": _utilisation(f"{ID}, component, team"),
        },
        {
            "record": f"wlmap:team_gpu_hours:increase{window}",
            "expr": f"increase(wlmap_team_gpu_seconds_total[{window}]) / 3600",
        },
        {
            "record": f"wlmap:namespace_gpu_hours:increase{window}",
            "expr": f"increase(wlmap_namespace_gpu_seconds_total[{window}]) / 3600",
        },
    ]
    for key in settings.domain_keys:
        label = domain_label(key)
        for name in ("gpus_free_fragmented", "gpus_free", "gpus_allocatable"):
            rules.append(
                {
                    "record": f"wlmap:domain_{name}:sum",
                    "expr": f"sum by ({label}) (wlmap_node_{name})",
                    "labels": {"domain_key": key},
                }
            )
    return {
        "name": "wlmap.recording",
        "interval": duration(settings.interval_seconds),
        "rules": rules,
    }


def _alerting(settings: RuleSettings) -> dict[str, Any]:
    idle = duration(settings.idle_seconds)
    percent = f"{settings.idle_ratio * 100:g}"
    wait = duration(settings.gang_wait_seconds)
    errors = duration(settings.error_window_seconds)
    rules = [
        {
            "alert": "WlmapWorkloadGPUsIdle",
            "expr": f"wlmap:workload_gpu_utilization:ratio < {settings.idle_ratio:g}",
            "for": idle,
            "labels": {"severity": "warning"},
            "annotations": {
                "summary": "A workload holds GPUs it does not use.",
                "description": (
                    "{{ $labels.kind }} {{ $labels.namespace }}/{{ $labels.workload }} "
                    f"(team {{{{ $labels.team }}}}) kept its GPUs under {percent} % "
                    f"utilisation for {idle}: now {{{{ $value | humanizePercentage }}}}."
                ),
            },
        },
        {
            "alert": "WlmapGangWaiting",
            "expr": (
                f"time() - wlmap_workload_gang_waiting_since_timestamp_seconds"
                f" > {settings.gang_wait_seconds}"
            ),
            "labels": {"severity": "warning"},
            "annotations": {
                "summary": "A gang has waited too long to be scheduled.",
                "description": (
                    "Gang {{ $labels.gang }} of {{ $labels.kind }} "
                    "{{ $labels.namespace }}/{{ $labels.workload }} has waited "
                    f"{{{{ $value | humanizeDuration }}}} (more than {wait}); "
                    "wlmap_workload_gang_waiting_reason says why."
                ),
            },
        },
        {
            "alert": "WlmapWorkloadDegraded",
            "expr": 'wlmap_workload_state{state="Degraded"} == 1',
            "for": duration(settings.degraded_seconds),
            "labels": {"severity": "warning"},
            "annotations": {
                "summary": "A workload is Degraded.",
                "description": (
                    "{{ $labels.kind }} {{ $labels.namespace }}/{{ $labels.workload }} "
                    f"has been Degraded for {duration(settings.degraded_seconds)}."
                ),
            },
        },
        {
            "alert": "WlmapDefinitionEvaluationFailing",
            "expr": f"increase(wlmap_definition_evaluation_errors_total[{errors}]) > 0",
            "labels": {"severity": "warning"},
            "annotations": {
                "summary": "A workload definition fails to evaluate.",
                "description": (
                    "Definition {{ $labels.definition }} failed to evaluate "
                    f"{{{{ $value | humanize }}}} times in {errors}: its workloads are "
                    "missing from the metrics (see the exporter's events)."
                ),
            },
        },
        {
            "alert": "WlmapExporterNotSynced",
            "expr": "wlmap_exporter_cache_synced == 0",
            "for": duration(settings.unsynced_seconds),
            "labels": {"severity": "warning"},
            "annotations": {
                "summary": "The wlmap exporter has not read the cluster.",
                "description": (
                    "{{ $labels.instance }} has not finished listing the cluster for "
                    f"{duration(settings.unsynced_seconds)}: its other series are not served."
                ),
            },
        },
    ]
    return {"name": "wlmap.alerts", "rules": rules}


def rule_groups(settings: RuleSettings | None = None) -> dict[str, Any]:
    """The rule file as data: the recording group, then the alerting group."""
    chosen = settings or RuleSettings()
    return {"groups": [_recording(chosen), _alerting(chosen)]}


class _Dumper(yaml.SafeDumper):
    """Multi-line strings (the joins) as literal blocks, readable in the shipped file."""


def _string(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _string)


def render_rules(settings: RuleSettings | None = None) -> str:
    """The rule file as Prometheus loads it (YAML)."""
    header = "# Generated by `make metrics-files` from wlmap.metrics.rules; do not edit.\n"
    body = yaml.dump(rule_groups(settings), Dumper=_Dumper, sort_keys=False, width=100)
    return header + body
