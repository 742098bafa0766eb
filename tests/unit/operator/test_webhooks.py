"""The webhook objects ``rbac --placement`` writes: a Service that reaches the operator's
pod on the port it serves, and a configuration that only opted-in namespaces pass."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from wlmap.operator.core.scope import SYSTEM_NAMESPACES
from wlmap.operator.core.settings import Settings
from wlmap.operator.core.webhook import POD_GROUP_HANDLER, mutations
from wlmap.operator.deploy.bundle import main
from wlmap.operator.deploy.webhooks import HANDLER_PATH, POD_GROUP_PATH, service_host

BASE = Path(__file__).resolve().parents[3] / "deploy" / "operator"


def _written(folder: Path, *arguments: str) -> dict[str, list[dict[str, Any]]]:
    assert main([str(folder), *arguments]) == 0
    return {
        path.name: [d for d in yaml.safe_load_all(path.read_text()) if d]
        for path in folder.glob("*.yaml")
    }


def test_placement_writes_a_service_to_the_operator_and_an_opt_in_configuration(
    tmp_path: Path,
) -> None:
    files = _written(tmp_path, "--placement")
    service, configuration = files["webhook.yaml"]
    deployment = yaml.safe_load((BASE / "deployment.yaml").read_text())
    pod_labels = deployment["spec"]["template"]["metadata"]["labels"]
    assert service["metadata"]["namespace"] == deployment["metadata"]["namespace"]
    assert service["spec"]["selector"].items() <= pod_labels.items()
    (port,) = service["spec"]["ports"]
    # the operator serves on the port of its WLMAP_WEBHOOK setting; the bundle's value
    settings = Settings.from_environment(
        {"WLMAP_WEBHOOK": f"{service_host()}:{port['targetPort']}", "WLMAP_WEBHOOK_MANAGED": "0"}
    )
    assert settings.webhook_address == (service_host(), port["targetPort"])
    assert not settings.webhook_managed
    assert service_host() == f"{service['metadata']['name']}.{service['metadata']['namespace']}.svc"
    (hook,) = configuration["webhooks"]
    target = hook["clientConfig"]["service"]
    assert (target["name"], target["namespace"], target["port"]) == (
        service["metadata"]["name"],
        service["metadata"]["namespace"],
        port["port"],
    )
    assert target["path"] == HANDLER_PATH == "/placement-gate"  # kopf's path for the handler id
    assert hook["namespaceSelector"] == {
        "matchExpressions": [
            {"key": "wlmap.dev/placement", "operator": "In", "values": ["enabled"]}
        ]
    }
    assert hook["failurePolicy"] == "Ignore"
    assert hook["rules"][0]["resources"] == ["pods"] and hook["rules"][0]["operations"] == [
        "CREATE"
    ]


def test_without_placement_no_webhook_is_written(tmp_path: Path) -> None:
    assert "webhook.yaml" not in _written(tmp_path)
    assert Settings.from_environment({}).webhook_managed


def test_pod_groups_writes_the_pod_group_webhook_for_every_namespace_but_unserved_ones(
    tmp_path: Path,
) -> None:
    """The Workload API target's webhook: the operator tells served namespaces apart in
    every mode, so the configuration only keeps the system ones and its own away."""
    files = _written(tmp_path, "--pod-groups")
    service, configuration = files["webhook.yaml"]
    (hook,) = configuration["webhooks"]
    target = hook["clientConfig"]["service"]
    assert (target["name"], target["path"]) == (service["metadata"]["name"], "/pod-group")
    assert f"/{POD_GROUP_HANDLER}" == POD_GROUP_PATH  # kopf's path for the handler id
    (excluded,) = hook["namespaceSelector"]["matchExpressions"]
    assert (excluded["key"], excluded["operator"]) == ("kubernetes.io/metadata.name", "NotIn")
    assert set(excluded["values"]) == {*SYSTEM_NAMESPACES, service["metadata"]["namespace"]}
    assert hook["failurePolicy"] == "Ignore"
    rules = [r for d in files["rbac.yaml"] if d["kind"] == "ClusterRole" for r in d["rules"]]
    granted = {
        resource: set(rule["verbs"])
        for rule in rules
        if "admissionregistration.k8s.io" in rule["apiGroups"]
        for resource in rule["resources"]
    }
    assert granted["mutatingwebhookconfigurations"] == {"create", "patch"}


def test_placement_and_pod_groups_list_the_gate_first_as_the_operator_counts_them(
    tmp_path: Path,
) -> None:
    files = _written(tmp_path, "--placement", "--pod-groups")
    _, configuration = files["webhook.yaml"]
    paths = [hook["clientConfig"]["service"]["path"] for hook in configuration["webhooks"]]
    assert paths == ["/placement-gate", "/pod-group"]
    settings = Settings(
        target="workload-api", placement=True, placement_levels=("kubernetes.io/hostname",)
    )
    assert [f"/{name}" for name in mutations(settings)] == paths


def test_pod_groups_is_refused_for_an_overlay(tmp_path: Path) -> None:
    with pytest.raises(SystemExit):
        main([str(tmp_path), "--pod-groups", "--target", "workload-api", "--base", str(BASE)])
