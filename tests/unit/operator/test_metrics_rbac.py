"""The standalone exporter's RBAC: current with the code, read-only but for its checkpoint,
and reading every kind the operator reads a workload through."""

from __future__ import annotations

from pathlib import Path

import yaml

from wlmap.catalog import builtin_registry
from wlmap.operator.deploy.metrics_rbac import metrics_manifests, metrics_rules, render_metrics_rbac
from wlmap.operator.deploy.rbac import plural

COMMITTED = Path(__file__).resolve().parents[3] / "deploy" / "metrics" / "rbac.yaml"


def test_committed_rbac_is_current() -> None:
    assert COMMITTED.read_text(encoding="utf-8") == render_metrics_rbac(), (
        "deploy/metrics/rbac.yaml is stale: run `make metrics-files`"
    )


def test_every_grant_is_a_read_but_the_checkpoint_configmap() -> None:
    for manifest in metrics_manifests():
        for rule in manifest.get("rules", ()):
            writes = set(rule["verbs"]) - {"get", "list", "watch"}
            if writes:
                assert manifest["kind"] == "Role", manifest["metadata"]["name"]
                assert rule["resources"] == ["configmaps"]
                assert writes <= {"create", "update"}
                assert manifest["metadata"]["namespace"] == "wlmap-system"


def test_every_mapped_kind_pods_nodes_and_namespaces_are_listed_and_watched() -> None:
    namespaced, cluster = metrics_rules()
    granted = {
        (group, resource)
        for rule in namespaced + cluster
        if {"list", "watch"} <= set(rule["verbs"])
        for group in rule["apiGroups"]
        for resource in rule["resources"]
    }
    for entry in builtin_registry():
        gvk = entry.gvk
        if gvk is not None:
            assert (gvk.group, plural(gvk.kind)) in granted, gvk
    assert {("", "pods"), ("", "nodes"), ("", "namespaces")} <= granted
    assert ("resource.k8s.io", "resourceclaims") in granted


def test_no_gang_object_or_event_is_granted() -> None:
    text = yaml.safe_dump(metrics_rules())
    assert "podgroups" not in text
    assert "events" not in text
