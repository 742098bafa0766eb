"""The standalone exporter's RBAC: current with the code, read-only but for its checkpoint
ConfigMap, reading every kind the exporter reads a workload through, and one set of
objects for the kustomize files and the Helm chart."""

from __future__ import annotations

from pathlib import Path

from wlmap.catalog import builtin_registry
from wlmap.metrics.checkpoint import CHECKPOINT_NAME
from wlmap.operator.deploy.metrics_rbac import (
    CHECKPOINT_ROLE,
    NAME,
    exporter_manifests,
    exporter_rules,
    render_exporter_rbac,
)
from wlmap.operator.deploy.rbac import plural

COMMITTED = Path(__file__).resolve().parents[3] / "deploy" / "metrics" / "rbac.yaml"


def test_committed_rbac_is_current() -> None:
    assert COMMITTED.read_text(encoding="utf-8") == render_exporter_rbac(), (
        "deploy/metrics/rbac.yaml is stale: run `make metrics-files`"
    )


def test_every_grant_is_a_read_but_the_checkpoint_configmap() -> None:
    for manifest in exporter_manifests():
        for rule in manifest.get("rules", ()):
            writes = set(rule["verbs"]) - {"get", "list", "watch"}
            if writes:
                assert manifest["kind"] == "Role", manifest["metadata"]["name"]
                assert rule["resources"] == ["configmaps"]
                assert writes <= {"create", "update"}
                assert manifest["metadata"]["namespace"] == "wlmap-system"


def test_the_checkpoint_is_granted_by_name_where_a_verb_allows_it() -> None:
    (role,) = [
        m
        for m in exporter_manifests()
        if m["kind"] == "Role" and m["metadata"]["name"] == CHECKPOINT_ROLE
    ]
    by_verbs = {tuple(r["verbs"]): r.get("resourceNames") for r in role["rules"]}
    # create is checked before the object has a name: it cannot be limited to one
    assert by_verbs == {("create",): None, ("get", "update"): [CHECKPOINT_NAME]}


def test_every_mapped_kind_pods_nodes_and_namespaces_are_listed_and_watched() -> None:
    namespaced, cluster = exporter_rules()
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


def test_no_gang_object_event_or_crd_is_granted() -> None:
    namespaced, cluster = exporter_rules()
    granted = {
        (group, resource)
        for rule in namespaced + cluster
        for group in rule["apiGroups"]
        for resource in rule["resources"]
    }
    assert (
        not {
            ("scheduling.run.ai", "podgroups"),
            ("scheduling.k8s.io", "workloads"),
            ("", "events"),
            ("apiextensions.k8s.io", "customresourcedefinitions"),
        }
        & granted
    )


def test_served_namespaces_bind_the_workload_reads_there_only() -> None:
    objects = exporter_manifests(namespaces=["team-b", "team-a", "team-b"])
    bindings = [
        (o["kind"], o["metadata"].get("namespace"))
        for o in objects
        if o.get("roleRef", {}).get("name") == NAME
    ]
    assert bindings == [("RoleBinding", "team-a"), ("RoleBinding", "team-b")]
    everywhere = exporter_manifests()
    assert [o["kind"] for o in everywhere if o.get("roleRef", {}).get("name") == NAME] == [
        "ClusterRoleBinding"
    ]
