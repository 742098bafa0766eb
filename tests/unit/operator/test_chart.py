"""The Helm chart: current with its generator, linted and rendered by a real helm, and
rendering the objects the kustomize bundle does for the same choices (built by kubectl's
kustomize where installed; compared with the generator's objects everywhere)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.helm import CHART, Key, key, refusal, run, template, values_file
from wlmap.operator.deploy import metrics_rbac, rbac
from wlmap.operator.deploy.admission import policy_manifests
from wlmap.operator.deploy.bundle import main
from wlmap.operator.deploy.chart import render_chart
from wlmap.operator.deploy.webhooks import service_host, webhook_manifests

BASE = CHART.parents[2] / "deploy" / "operator"
NS = rbac.NAMESPACE

# (target, namespaces listed, selector, namespaces bound): the choices the kustomize
# overlay offers; under a selector, the namespaces the installer binds as well
CHOICES = [
    ("kai", [], "", []),
    ("volcano", [], "", ["team-b", "team-a", "team-b"]),
    ("kai", ["team-b", "team-a"], "", []),
    ("workload-api", ["team-a"], "", []),
    ("kai", [], "team=ml,!frozen", ["team-a"]),
    ("coscheduling", ["team-a", "team-c"], "tier!=batch", []),
]
# the command docs/operator.md gives for binding a namespace served by a selector
BIND = ["create", "rolebinding", rbac.NAME, "--clusterrole", rbac.NAME,
        "--serviceaccount", f"{NS}:{rbac.NAME}"]  # fmt: skip


def _values(target: str, listed: list[str], selector: str, bound: list[str]) -> dict[str, Any]:
    namespaces: dict[str, Any] = {"list": listed, "selector": selector}
    return {"target": target, "namespaces": namespaces | ({"bind": bound} if bound else {})}


def _kustomized(
    tmp_path: Path, target: str, listed: list[str], selector: str, bound: list[str]
) -> dict[Key, Any]:
    kubectl = shutil.which("kubectl")
    if kubectl is None:
        pytest.skip("kubectl (with its built-in kustomize) is not installed")
    folder = BASE
    arguments = [
        *(["--target", target] if target != rbac.DEFAULT_TARGET else []),
        *(["--namespaces", ",".join(listed)] if listed else []),
        *(["--namespace-selector", selector] if selector else []),
    ]
    if arguments:
        folder = tmp_path / "overlay"
        assert main([str(folder), *arguments, "--base", str(BASE)]) == 0
    built = subprocess.run(
        [kubectl, "kustomize", str(folder)], check=True, capture_output=True, text=True
    )
    objects = [o for o in yaml.safe_load_all(built.stdout) if o]
    # and what the installer binds by hand in each namespace a selector serves
    return {key(o): o for o in objects + rbac.namespace_bindings(bound)}


def test_the_committed_chart_is_current_with_its_generator() -> None:
    for name, content in render_chart(BASE).items():
        path = CHART / name
        assert path.is_file(), f"{name} missing: run `make deploy-manifests`"
        assert path.read_text(encoding="utf-8") == content, (
            f"{name} is stale: run `make deploy-manifests`"
        )


def test_helm_lints_the_chart() -> None:
    linted = run("lint", str(CHART), "--strict", check=False)
    assert linted.returncode == 0, linted.stdout + linted.stderr


@pytest.mark.parametrize(("target", "listed", "selector", "bound"), CHOICES)
def test_the_chart_renders_what_kustomize_builds(
    tmp_path: Path, target: str, listed: list[str], selector: str, bound: list[str]
) -> None:
    rendered = template(_values(target, listed, selector, bound), tmp_path, NS)
    built = _kustomized(tmp_path, target, listed, selector, bound)
    # the bundle makes its namespace; helm installs into the release's (--create-namespace)
    built.pop(("Namespace", "None", NS))
    assert sorted(rendered) == sorted(built)
    for found in built:
        assert rendered[found] == built[found], found


@pytest.mark.parametrize(("target", "listed", "selector", "bound"), CHOICES)
def test_the_chart_grants_what_the_generator_grants(
    tmp_path: Path, target: str, listed: list[str], selector: str, bound: list[str]
) -> None:
    rendered = template(_values(target, listed, selector, bound), tmp_path, NS)
    expected = (
        rbac.manifests(namespaces=listed, target=target)
        + rbac.namespace_bindings(bound)
        + policy_manifests(listed, selector or None)
    )
    for obj in expected:
        assert rendered.get(key(obj)) == obj, key(obj)
    # the namespaced rules: bound in the listed, else the named, namespaces; never cluster-wide
    bindings = {k for k in rendered if k[0] == "RoleBinding" and k[2] == rbac.NAME}
    assert bindings == {("RoleBinding", ns, rbac.NAME) for ns in listed or bound}
    assert ("ClusterRoleBinding", "None", rbac.NAME) not in rendered
    # the workload kinds' cluster-wide reads: under a selector only
    workloads = ("ClusterRoleBinding", "None", rbac.WORKLOADS_ROLE)
    assert (workloads in rendered) == (not listed)


def test_a_bound_namespace_gets_the_binding_the_documented_command_makes(
    tmp_path: Path,
) -> None:
    kubectl = shutil.which("kubectl")
    if kubectl is None:
        pytest.skip("kubectl is not installed")
    rendered = template({"namespaces": {"bind": ["team-a"]}}, tmp_path, NS)
    made = subprocess.run(
        [kubectl, "-n", "team-a", *BIND, "--dry-run=client", "-o", "yaml"],
        check=True, capture_output=True, text=True,
    )  # fmt: skip
    by_hand = yaml.safe_load(made.stdout)
    ours = rendered[key(by_hand)]
    assert (ours["roleRef"], ours["subjects"]) == (by_hand["roleRef"], by_hand["subjects"])


def test_placement_adds_its_grants_webhook_and_settings(tmp_path: Path) -> None:
    values = {"placement": {"enabled": True, "levels": ["zone", "kubernetes.io/hostname"]}}
    rendered = template(values, tmp_path, "gpu-ops")
    expected = rbac.manifests(placement=True) + webhook_manifests()
    for obj in expected:
        moved = yaml.safe_load(yaml.safe_dump(obj).replace(NS, "gpu-ops"))
        assert rendered.get(key(moved)) == moved, key(moved)
    deployment = rendered[("Deployment", "gpu-ops", rbac.NAME)]
    (container,) = deployment["spec"]["template"]["spec"]["containers"]
    env = {e["name"]: e["value"] for e in container["env"]}
    assert env["WLMAP_PLACEMENT"] == "true"
    assert env["WLMAP_PLACEMENT_LEVELS"] == "zone,kubernetes.io/hostname"
    assert env["WLMAP_WEBHOOK"] == f"{service_host('gpu-ops')}:9443"
    assert env["WLMAP_WEBHOOK_MANAGED"] == "false"
    without = template({}, tmp_path, "gpu-ops")
    assert ("MutatingWebhookConfiguration", "None", "wlmap.dev") not in without


def test_metrics_and_the_exporter(tmp_path: Path) -> None:
    values = {
        "metrics": {"enabled": True, "port": 9500},
        "exporter": {"enabled": True, "teamLabel": "cost-center"},
        "namespaces": {"list": ["team-a"]},
        "serviceMonitor": {"enabled": True},
    }
    rendered = template(values, tmp_path, NS)
    operator = rendered[("Deployment", NS, rbac.NAME)]["spec"]["template"]["spec"]
    assert operator["containers"][0]["args"] == ["--metrics-port", "9500"]
    assert rendered[("Service", NS, "wlmap-operator-metrics")]["spec"]["ports"][0]["port"] == 9500
    for obj in metrics_rbac.exporter_manifests(namespaces=["team-a"]):
        assert rendered.get(key(obj)) == obj, key(obj)
    grants = rendered[("ClusterRole", "None", metrics_rbac.NAME)]["rules"]
    assert all(set(r["verbs"]) <= {"get", "list", "watch"} for r in grants)
    (container,) = rendered[("Deployment", NS, metrics_rbac.NAME)]["spec"]["template"]["spec"][
        "containers"
    ]
    assert container["command"] == ["wlmap", "metrics", "serve"]
    assert container["args"] == [
        "--port", "9402", "--team-label", "cost-center", "--checkpoint-namespace", NS,
        "--namespaces", "team-a",
    ]  # fmt: skip
    selected = template({"exporter": {"enabled": True}, "namespaces": {"selector": "team"}},
                        tmp_path, NS)  # fmt: skip
    (container,) = selected[("Deployment", NS, metrics_rbac.NAME)]["spec"]["template"]["spec"][
        "containers"
    ]
    assert container["args"][-2:] == ["--namespace-selector", "team"]
    monitor = rendered[("ServiceMonitor", NS, "wlmap")]
    assert monitor["spec"]["endpoints"][0]["port"] == "metrics"
    off = template({}, tmp_path, NS)
    assert not [k for k in off if "exporter" in k[2] or k[0] == "ServiceMonitor"]


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({"target": "yunikorn"}, "target"),
        ({"namespaces": {"list": ["Team_A"]}}, "namespaces/list/0"),
        ({"namespaces": {"bind": ["team-a", "Team_B"]}}, "namespaces/bind/1"),
        (
            {"namespaces": {"list": ["team-a"], "bind": ["team-b"]}},
            "namespaces.bind: the listed namespaces (namespaces.list) are bound already",
        ),
        ({"namespaces": {"selector": "team in (a)"}}, 'namespaces.selector: "team in (a)"'),
        ({"placement": {"enabled": True}}, "placement.levels: placement.enabled needs"),
        ({"serviceMonitor": {"enabled": True}}, "serviceMonitor.enabled: nothing to scrape"),
        ({"prometheusRule": {"enabled": True}}, "prometheusRule.enabled:"),
    ],
    ids=["target", "namespace", "bound", "bind-and-list", "selector", "levels", "monitor", "rules"],
)
def test_bad_values_are_refused_naming_the_value(
    tmp_path: Path, values: dict[str, Any], message: str
) -> None:
    chart = CHART
    if "prometheusRule" in values:
        # the committed chart holds its generated rules: a copy without them must refuse
        chart = tmp_path / "wlmap"
        shutil.copytree(CHART, chart)
        (chart / "files" / "wlmap-rules.yaml").unlink()
    said = refusal(values, tmp_path, chart)
    assert message in said, said
    assert "panic" not in said and "goroutine" not in said


def test_the_rules_and_dashboard_files_become_objects(tmp_path: Path) -> None:
    chart = tmp_path / "wlmap"
    shutil.copytree(CHART, chart)
    groups = [
        {
            "name": "wlmap-test",
            "rules": [{"record": "x:wlmap_workload_components:sum", "expr": "sum(x)"}],
        }
    ]
    (chart / "files").mkdir(exist_ok=True)
    (chart / "files" / "wlmap-rules.yaml").write_text(yaml.safe_dump({"groups": groups}))
    dashboard = '{"title": "wlmap", "panels": [{"title": "GPUs \\"held\\""}]}'
    (chart / "files" / "wlmap-dashboard.json").write_text(dashboard)
    values = {
        "prometheusRule": {"enabled": True, "labels": {"release": "kube-prometheus"}},
        "dashboard": {"enabled": True},
    }
    rendered = run(
        "template", "wlmap", str(chart), "--namespace", NS,
        "-f", str(values_file(values, tmp_path)),
    )  # fmt: skip
    objects = {key(o): o for o in yaml.safe_load_all(rendered.stdout) if o}
    rule = objects[("PrometheusRule", NS, "wlmap")]
    assert rule["spec"]["groups"] == groups
    assert rule["metadata"]["labels"]["release"] == "kube-prometheus"
    config = objects[("ConfigMap", NS, "wlmap-dashboard")]
    assert config["data"]["wlmap-dashboard.json"] == dashboard
    assert config["metadata"]["labels"]["grafana_dashboard"] == "1"
    linted = run("lint", str(chart), "--strict", "-f", str(values_file(values, tmp_path)))
    assert linted.returncode == 0
