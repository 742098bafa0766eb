"""The shipped rules, checked and unit-tested by promtool: for each rule, input series and
the records or alerts it must give (and must not give)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.integration.prometheus import promtool
from wlmap.metrics.rules import rule_groups
from wlmap.metrics.shipped import FILES

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"
RULES = DEPLOY / next(path for path in FILES if path.startswith("prometheus/"))

TRAIN = 'namespace="ml", workload="train", kind="JobSet", group="jobset.x-k8s.io"'
SERVE = 'namespace="ml", workload="serve", kind="LeaderWorkerSet", group="leaderworkerset.x-k8s.io"'
TRAIN_LABELS = {
    "namespace": "ml",
    "workload": "train",
    "kind": "JobSet",
    "group": "jobset.x-k8s.io",
}


def dcgm(pod: str, gpu: int, container: str = "train") -> str:
    """A DCGM_FI_DEV_GPU_UTIL series with dcgm-exporter's labels."""
    return (
        f'DCGM_FI_DEV_GPU_UTIL{{gpu="{gpu}", UUID="GPU-{pod}-{gpu}", device="nvidia{gpu}", '
        f'modelName="NVIDIA H100 80GB HBM3", Hostname="node-{pod}", namespace="ml", '
        f'pod="{pod}", container="{container}"}}'
    )


def info(workload: str, pod: str, component: str, team: str = "vision") -> str:
    kind = "JobSet" if workload == "train" else "LeaderWorkerSet"
    group = "jobset.x-k8s.io" if workload == "train" else "leaderworkerset.x-k8s.io"
    return (
        f'wlmap_pod_workload_info{{namespace="ml", pod="{pod}", container="train", '
        f'workload="{workload}", kind="{kind}", group="{group}", component="{component}", '
        f'team="{team}"}}'
    )


UTILISATION_INPUT = [
    # train: two pods of two components, three GPUs at 30, 50 and 100 %
    {"series": dcgm("train-0", 0), "values": "30x30"},
    {"series": dcgm("train-0", 1), "values": "50x30"},
    {"series": dcgm("train-1", 0), "values": "100x30"},
    {"series": info("train", "train-0", "workers"), "values": "1x30"},
    {"series": info("train", "train-1", "driver"), "values": "1x30"},
    # a GPU used by a pod of no workload: in no record
    {"series": dcgm("stray", 0), "values": "90x30"},
]

CASES: dict[str, dict[str, Any]] = {
    "wlmap:workload_gpu_utilization:ratio": {
        "interval": "1m",
        "input_series": UTILISATION_INPUT,
        "promql_expr_test": [
            {
                "expr": "wlmap:workload_gpu_utilization:ratio",
                "eval_time": "10m",
                "exp_samples": [
                    {
                        "labels": f'wlmap:workload_gpu_utilization:ratio{{{TRAIN}, team="vision"}}',
                        "value": 0.6,
                    }
                ],
            }
        ],
    },
    "wlmap:workload_component_gpu_utilization:ratio": {
        "interval": "1m",
        "input_series": UTILISATION_INPUT,
        "promql_expr_test": [
            {
                "expr": "wlmap:workload_component_gpu_utilization:ratio",
                "eval_time": "10m",
                "exp_samples": [
                    {
                        "labels": "wlmap:workload_component_gpu_utilization:ratio"
                        f'{{{TRAIN}, component="workers", team="vision"}}',
                        "value": 0.4,
                    },
                    {
                        "labels": "wlmap:workload_component_gpu_utilization:ratio"
                        f'{{{TRAIN}, component="driver", team="vision"}}',
                        "value": 1.0,
                    },
                ],
            }
        ],
    },
    "wlmap:team_gpu_hours:increase1d": {
        # 8 GPUs held all day: 480 GPU-seconds a minute; 4 GPUs for the other team
        "interval": "1m",
        "input_series": [
            {"series": 'wlmap_team_gpu_seconds_total{team="vision"}', "values": "0+480x1500"},
            {"series": 'wlmap_team_gpu_seconds_total{team="speech"}', "values": "0+240x1500"},
        ],
        "promql_expr_test": [
            {
                "expr": "wlmap:team_gpu_hours:increase1d",
                "eval_time": "1d",
                "exp_samples": [
                    {"labels": 'wlmap:team_gpu_hours:increase1d{team="vision"}', "value": 192},
                    {"labels": 'wlmap:team_gpu_hours:increase1d{team="speech"}', "value": 96},
                ],
            }
        ],
    },
    "wlmap:namespace_gpu_hours:increase1d": {
        # 2 GPUs held from 12h on: 24 GPU-hours in the day
        "interval": "1m",
        "input_series": [
            {
                "series": 'wlmap_namespace_gpu_seconds_total{namespace="ml"}',
                "values": "0x719 0+120x780",
            },
        ],
        "promql_expr_test": [
            {
                "expr": "wlmap:namespace_gpu_hours:increase1d",
                "eval_time": "1d",
                "exp_samples": [
                    {"labels": 'wlmap:namespace_gpu_hours:increase1d{namespace="ml"}', "value": 24}
                ],
            }
        ],
    },
    "wlmap:domain_gpus_free_fragmented:sum": {
        "interval": "1m",
        "input_series": [
            {
                "series": 'wlmap_node_gpus_free_fragmented{node="n1", '
                'label_topology_kubernetes_io_zone="eu", label_nvidia_com_gpu_clique="eu-a"}',
                "values": "3x10",
            },
            {
                "series": 'wlmap_node_gpus_free_fragmented{node="n2", '
                'label_topology_kubernetes_io_zone="eu", label_nvidia_com_gpu_clique="eu-b"}',
                "values": "2x10",
            },
            {
                "series": 'wlmap_node_gpus_free_fragmented{node="n3", '
                'label_topology_kubernetes_io_zone="eu", label_nvidia_com_gpu_clique="eu-b"}',
                "values": "1x10",
            },
        ],
        "promql_expr_test": [
            {
                "expr": "wlmap:domain_gpus_free_fragmented:sum",
                "eval_time": "5m",
                "exp_samples": [
                    {
                        "labels": "wlmap:domain_gpus_free_fragmented:sum{"
                        'domain_key="topology.kubernetes.io/zone", '
                        'label_topology_kubernetes_io_zone="eu"}',
                        "value": 6,
                    },
                    {
                        "labels": "wlmap:domain_gpus_free_fragmented:sum{"
                        'domain_key="nvidia.com/gpu.clique", '
                        'label_nvidia_com_gpu_clique="eu-a"}',
                        "value": 3,
                    },
                    {
                        "labels": "wlmap:domain_gpus_free_fragmented:sum{"
                        'domain_key="nvidia.com/gpu.clique", '
                        'label_nvidia_com_gpu_clique="eu-b"}',
                        "value": 3,
                    },
                ],
            }
        ],
    },
    "wlmap:domain_gpus_free:sum": {
        "interval": "1m",
        "input_series": [
            {
                "series": 'wlmap_node_gpus_free{node="n1", label_nvidia_com_gpu_clique="eu-a"}',
                "values": "8x10",
            },
            {
                "series": 'wlmap_node_gpus_free{node="n2", label_nvidia_com_gpu_clique="eu-a"}',
                "values": "4x10",
            },
        ],
        "promql_expr_test": [
            {
                "expr": 'wlmap:domain_gpus_free:sum{domain_key="nvidia.com/gpu.clique"}',
                "eval_time": "5m",
                "exp_samples": [
                    {
                        "labels": "wlmap:domain_gpus_free:sum{"
                        'domain_key="nvidia.com/gpu.clique", '
                        'label_nvidia_com_gpu_clique="eu-a"}',
                        "value": 12,
                    }
                ],
            }
        ],
    },
    "wlmap:domain_gpus_allocatable:sum": {
        "interval": "1m",
        "input_series": [
            {
                "series": 'wlmap_node_gpus_allocatable{node="n1", label_topology_kubernetes_io_zone="us"}',
                "values": "8x10",
            },
            {
                "series": 'wlmap_node_gpus_allocatable{node="n2", label_topology_kubernetes_io_zone="us"}',
                "values": "8x10",
            },
        ],
        "promql_expr_test": [
            {
                "expr": 'wlmap:domain_gpus_allocatable:sum{domain_key="topology.kubernetes.io/zone"}',
                "eval_time": "5m",
                "exp_samples": [
                    {
                        "labels": "wlmap:domain_gpus_allocatable:sum{"
                        'domain_key="topology.kubernetes.io/zone", '
                        'label_topology_kubernetes_io_zone="us"}',
                        "value": 16,
                    }
                ],
            }
        ],
    },
    "WlmapWorkloadGPUsIdle": {
        # train's GPUs at 2 % for 90 minutes; serve's at 70 %
        "interval": "1m",
        "input_series": [
            {"series": dcgm("train-0", 0), "values": "2x90"},
            {"series": info("train", "train-0", "workers"), "values": "1x90"},
            {"series": dcgm("serve-0", 0), "values": "70x90"},
            {"series": info("serve", "serve-0", "leader"), "values": "1x90"},
        ],
        "alert_rule_test": [
            {"eval_time": "50m", "alertname": "WlmapWorkloadGPUsIdle", "exp_alerts": []},
            {
                "eval_time": "70m",
                "alertname": "WlmapWorkloadGPUsIdle",
                "exp_alerts": [
                    {
                        "exp_labels": {**TRAIN_LABELS, "team": "vision", "severity": "warning"},
                        "exp_annotations": {
                            "summary": "A workload holds GPUs it does not use.",
                            "description": "JobSet ml/train (team vision) kept its GPUs under "
                            "5 % utilisation for 1h: now 2%.",
                        },
                    }
                ],
            },
        ],
    },
    "WlmapGangWaiting": {
        # the gang began waiting at unix time 60; alerts past 900 s
        "interval": "1m",
        "input_series": [
            {
                "series": "wlmap_workload_gang_waiting_since_timestamp_seconds"
                f'{{{TRAIN}, gang="workers"}}',
                "values": "60x30",
            },
        ],
        "alert_rule_test": [
            {"eval_time": "10m", "alertname": "WlmapGangWaiting", "exp_alerts": []},
            {
                "eval_time": "20m",
                "alertname": "WlmapGangWaiting",
                "exp_alerts": [
                    {
                        "exp_labels": {**TRAIN_LABELS, "gang": "workers", "severity": "warning"},
                        "exp_annotations": {
                            "summary": "A gang has waited too long to be scheduled.",
                            "description": "Gang workers of JobSet ml/train has waited 19m 0s "
                            "(more than 15m); wlmap_workload_gang_waiting_reason says why.",
                        },
                    }
                ],
            },
        ],
    },
    "WlmapWorkloadDegraded": {
        "interval": "1m",
        "input_series": [
            {"series": f'wlmap_workload_state{{{TRAIN}, state="Degraded"}}', "values": "1x30"},
            {"series": f'wlmap_workload_state{{{TRAIN}, state="Running"}}', "values": "0x30"},
            {"series": f'wlmap_workload_state{{{SERVE}, state="Degraded"}}', "values": "0x30"},
            {"series": f'wlmap_workload_state{{{SERVE}, state="Running"}}', "values": "1x30"},
        ],
        "alert_rule_test": [
            {"eval_time": "10m", "alertname": "WlmapWorkloadDegraded", "exp_alerts": []},
            {
                "eval_time": "20m",
                "alertname": "WlmapWorkloadDegraded",
                "exp_alerts": [
                    {
                        "exp_labels": {**TRAIN_LABELS, "state": "Degraded", "severity": "warning"},
                        "exp_annotations": {
                            "summary": "A workload is Degraded.",
                            "description": "JobSet ml/train has been Degraded for 15m.",
                        },
                    }
                ],
            },
        ],
    },
    "WlmapDefinitionEvaluationFailing": {
        # three errors around minute 5, none after
        "interval": "1m",
        "input_series": [
            {
                "series": 'wlmap_definition_evaluation_errors_total{definition="jobset"}',
                "values": "0x4 1 2 3 3x40",
            },
        ],
        "alert_rule_test": [
            {
                "eval_time": "8m",
                "alertname": "WlmapDefinitionEvaluationFailing",
                "exp_alerts": [
                    {
                        "exp_labels": {"definition": "jobset", "severity": "warning"},
                        "exp_annotations": {
                            "summary": "A workload definition fails to evaluate.",
                            "description": "Definition jobset failed to evaluate 3 times "
                            "in 10m: its workloads are missing from the metrics (see the "
                            "exporter's events).",
                        },
                    }
                ],
            },
            {"eval_time": "30m", "alertname": "WlmapDefinitionEvaluationFailing", "exp_alerts": []},
        ],
    },
    "WlmapExporterNotSynced": {
        "interval": "1m",
        "input_series": [
            {
                "series": 'wlmap_exporter_cache_synced{instance="a:9402", job="wlmap"}',
                "values": "0x30",
            },
            {
                "series": 'wlmap_exporter_cache_synced{instance="b:9402", job="wlmap"}',
                "values": "0 1x30",
            },
        ],
        "alert_rule_test": [
            {"eval_time": "5m", "alertname": "WlmapExporterNotSynced", "exp_alerts": []},
            {
                "eval_time": "15m",
                "alertname": "WlmapExporterNotSynced",
                "exp_alerts": [
                    {
                        "exp_labels": {
                            "instance": "a:9402",
                            "job": "wlmap",
                            "severity": "warning",
                        },
                        "exp_annotations": {
                            "summary": "The wlmap exporter has not read the cluster.",
                            "description": "a:9402 has not finished listing the cluster for "
                            "10m: its other series are not served.",
                        },
                    }
                ],
            },
        ],
    },
}


def rule_names() -> set[str]:
    return {
        rule.get("record") or rule["alert"]
        for group in rule_groups()["groups"]
        for rule in group["rules"]
    }


def test_every_rule_has_a_promtool_case() -> None:
    assert rule_names() == set(CASES)


def test_the_shipped_rules_pass_promtool_check(prometheus_binaries: Path) -> None:
    checked = promtool(prometheus_binaries, "check", "rules", RULES)
    assert checked.returncode == 0, checked.stdout
    assert f"SUCCESS: {sum(len(g['rules']) for g in rule_groups()['groups'])} rules found" in (
        checked.stdout
    )


@pytest.mark.parametrize("rule", sorted(CASES))
def test_rule_gives_what_its_inputs_call_for(
    rule: str, prometheus_binaries: Path, tmp_path: Path
) -> None:
    tests = tmp_path / "tests.yaml"
    tests.write_text(
        yaml.safe_dump(
            {"rule_files": [str(RULES)], "evaluation_interval": "1m", "tests": [CASES[rule]]}
        )
    )
    result = promtool(prometheus_binaries, "test", "rules", tests)
    assert result.returncode == 0, result.stdout


def test_promtool_rejects_a_wrong_expectation(prometheus_binaries: Path, tmp_path: Path) -> None:
    """The cases above can fail: the idle alert expected for the busy workload does not pass."""
    case = CASES["WlmapWorkloadGPUsIdle"]
    wrong = {
        **case,
        "alert_rule_test": [
            {
                "eval_time": "70m",
                "alertname": "WlmapWorkloadGPUsIdle",
                "exp_alerts": [{"exp_labels": {"workload": "serve"}}],
            }
        ],
    }
    tests = tmp_path / "tests.yaml"
    tests.write_text(
        yaml.safe_dump({"rule_files": [str(RULES)], "evaluation_interval": "1m", "tests": [wrong]})
    )
    result = promtool(prometheus_binaries, "test", "rules", tests)
    assert result.returncode != 0
    assert "WlmapWorkloadGPUsIdle" in result.stdout
