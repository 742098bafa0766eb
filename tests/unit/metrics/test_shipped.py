"""The shipped rules and dashboard: current with the code, and consistent with each other."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml

from wlmap.metrics.dashboard import dashboard
from wlmap.metrics.node_series import domain_label
from wlmap.metrics.rules import RuleSettings, duration, rule_groups
from wlmap.metrics.shipped import main, rendered

DEPLOY = Path(__file__).resolve().parents[3] / "deploy"


@pytest.mark.parametrize("path", sorted(rendered()))
def test_committed_file_is_current(path: str) -> None:
    committed = DEPLOY / path
    assert committed.read_text(encoding="utf-8") == rendered()[path], (
        f"deploy/{path} is stale: run `make metrics-files`"
    )


def test_main_writes_every_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([str(tmp_path)]) == 0
    assert {p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*.*")} == set(rendered())
    assert main([]) == 2
    assert "usage" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("seconds", "text"),
    [(1, "1s"), (90, "1m30s"), (3600, "1h"), (86400, "1d"), (93784, "1d2h3m4s")],
)
def test_duration(seconds: int, text: str) -> None:
    assert duration(seconds) == text


@pytest.mark.parametrize("seconds", [0, -5, 1.5])
def test_duration_refuses_what_is_not_a_whole_positive_second(seconds: float) -> None:
    with pytest.raises(ValueError, match="positive whole number of seconds"):
        duration(seconds)


def test_domain_label_is_named_as_kube_state_metrics_does() -> None:
    assert domain_label("topology.kubernetes.io/zone") == "label_topology_kubernetes_io_zone"
    assert domain_label("nvidia.com/gpu.clique") == "label_nvidia_com_gpu_clique"


def test_idle_ratio_out_of_range_is_refused() -> None:
    with pytest.raises(ValueError, match="utilisation from 0 to 1"):
        RuleSettings(idle_ratio=5)


def test_settings_reach_the_rules() -> None:
    short = RuleSettings(
        idle_ratio=0.1, idle_seconds=5, gpu_hours_seconds=60, domain_keys=("rack",)
    )
    rules = {
        r.get("record") or r["alert"]: r for g in rule_groups(short)["groups"] for r in g["rules"]
    }
    assert rules["WlmapWorkloadGPUsIdle"]["for"] == "5s"
    assert rules["WlmapWorkloadGPUsIdle"]["expr"].endswith("< 0.1")
    assert "wlmap:team_gpu_hours:increase1m" in rules
    assert (
        rules["wlmap:domain_gpus_free:sum"]["expr"] == "sum by (label_rack) (wlmap_node_gpus_free)"
    )


def test_the_shipped_rule_file_is_the_data_rule_groups_gives() -> None:
    shipped = yaml.safe_load((DEPLOY / "prometheus/wlmap-rules.yaml").read_text())
    assert shipped == rule_groups()


def test_dashboard_reads_only_recorded_or_exported_series() -> None:
    recorded = {r["record"] for g in rule_groups()["groups"] for r in g["rules"] if "record" in r}
    board = dashboard()
    exprs = [t["expr"] for p in board["panels"] for t in p.get("targets", ())]
    assert exprs
    for expr in exprs:
        for name in re.findall(r"wlmap[:_][a-zA-Z0-9_:]+", expr):
            assert name in recorded or not name.startswith("wlmap:"), (name, expr)
            assert name.startswith(("wlmap:", "wlmap_")), name


def test_dashboard_panels_do_not_overlap() -> None:
    cells: set[tuple[int, int]] = set()
    for panel in dashboard()["panels"]:
        pos = panel["gridPos"]
        assert pos["x"] + pos["w"] <= 24
        mine = {
            (x, y)
            for x in range(pos["x"], pos["x"] + pos["w"])
            for y in range(pos["y"], pos["y"] + pos["h"])
        }
        assert not cells & mine, panel["title"]
        cells |= mine
    ids = [p["id"] for p in dashboard()["panels"]]
    assert len(ids) == len(set(ids))


def test_dashboard_file_is_json_grafana_imports() -> None:
    board = json.loads((DEPLOY / "grafana/wlmap-dashboard.json").read_text())
    assert board["uid"] and board["schemaVersion"] >= 36
    assert [v["name"] for v in board["templating"]["list"]] == ["datasource", "namespace", "team"]
