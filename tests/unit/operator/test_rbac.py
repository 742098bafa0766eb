"""The operator's RBAC: generated from the catalog, committed unchanged, least privilege."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.corpus import CORPUS, missing
from wlmap.catalog import builtin_registry
from wlmap.operator.core.settings import parse_kinds
from wlmap.operator.deploy import rbac
from wlmap.operator.deploy.bundle import main, render

COMMITTED = Path(__file__).resolve().parents[3] / "deploy" / "operator"


def _verbs(rules: list[dict[str, Any]], group: str, resource: str) -> set[str]:
    return {
        verb
        for rule in rules
        if group in rule["apiGroups"] and resource in rule["resources"]
        for verb in rule["verbs"]
    }


def _crd_names(text: str) -> dict[str, Any]:
    """``spec.names`` of a CRD, read from its block alone (the schemas are megabytes)."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.strip() == "names:")
    indent = len(lines[start]) - len(lines[start].lstrip())
    block = [lines[start].strip()]
    for line in lines[start + 1 :]:
        if line.strip() and len(line) - len(line.lstrip()) <= indent:
            break
        block.append(line[indent:])
    names: dict[str, Any] = yaml.safe_load("\n".join(block))["names"]
    return names


@pytest.mark.parametrize("name", sorted(render()))
def test_generated_files_have_not_drifted(name: str) -> None:
    committed = (COMMITTED / name).read_text(encoding="utf-8")
    assert committed == render()[name], (
        f"deploy/operator/{name} is out of date: run `make deploy-manifests` and commit the result"
    )


@pytest.mark.parametrize(
    ("kind", "expected"),
    [
        ("JobSet", "jobsets"),
        ("Milvus", "milvuses"),
        ("Sandbox", "sandboxes"),
        ("NIMCache", "nimcaches"),
        ("Mesh", "meshes"),
        ("Policy", "policies"),
        ("Gateway", "gateways"),
        ("Pod", "pods"),
    ],
)
def test_plural_rule(kind: str, expected: str) -> None:
    assert rbac.plural(kind) == expected


def test_plural_rule_matches_every_corpus_crd() -> None:
    files = sorted((CORPUS / "crds").glob("*.yaml"))
    if not files:
        pytest.skip(missing("crds"))
    for file in files:
        names = _crd_names(file.read_text(encoding="utf-8"))
        assert rbac.plural(names["kind"]) == names["plural"], file.name


def _all_rules() -> list[dict[str, Any]]:
    return rbac.namespaced_rules() + rbac.cluster_rules() + rbac.own_namespace_rules()


def test_every_catalog_root_kind_is_readable() -> None:
    rules = rbac.namespaced_rules()
    for entry in builtin_registry():
        gvk = entry.definition.root_gvk
        assert gvk is not None
        verbs = _verbs(rules, gvk.group, rbac.plural(gvk.kind))
        # ReplicaSets are no workloads of their own, but the cache watches them as owners
        assert {"get", "list", "watch"} <= verbs, gvk


def test_writes_only_what_the_operator_writes() -> None:
    rules = _all_rules()
    writes = {"create", "update", "patch", "delete", "deletecollection", "*"}
    written = {
        (group, resource)
        for rule in rules
        for group in rule["apiGroups"]
        for resource in rule["resources"]
        if writes & set(rule["verbs"])
    }
    assert written == {
        ("", "pods"),
        ("", "events"),
        ("coordination.k8s.io", "leases"),
        ("wlmap.dev", "workloadmaps/status"),
        ("run.ai", "kartas/status"),
        ("scheduling.run.ai", "podgroups"),  # the bundle's target, kai, alone
    }
    assert _verbs(rules, "", "pods") == {"get", "list", "watch", "patch"}
    assert _verbs(rules, "", "events") == {"create", "patch"}
    assert _verbs(rules, "scheduling.run.ai", "podgroups") == {
        "get",
        "list",
        "watch",
        "create",
        "patch",
        "delete",
    }
    assert all("update" not in rule["verbs"] for rule in rbac.namespaced_rules())
    assert all("*" not in rule["verbs"] + rule["resources"] + rule["apiGroups"] for rule in rules)


GANG_RESOURCES = {
    "kai": {("scheduling.run.ai", "podgroups")},
    "volcano": {("scheduling.volcano.sh", "podgroups")},
    "workload-api": {("scheduling.k8s.io", "podgroups"), ("scheduling.k8s.io", "workloads")},
    "coscheduling": {("scheduling.x-k8s.io", "podgroups")},
}


@pytest.mark.parametrize("target", sorted(GANG_RESOURCES))
def test_only_the_targets_gang_objects_are_kept(target: str) -> None:
    rules = rbac.namespaced_rules(target=target)
    kept = {
        (group, resource)
        for rule in rules
        if "delete" in rule["verbs"]
        for group in rule["apiGroups"]
        for resource in rule["resources"]
    }
    assert kept == GANG_RESOURCES[target]
    for group, resource in set().union(*GANG_RESOURCES.values()) - kept:
        assert _verbs(rules, group, resource) == set(), (group, resource)
    # the overlay's rewrite of the bundle's role comes to the same rules
    assert rbac.retarget(rbac.namespaced_rules(), target) == rules


def test_an_unknown_target_is_refused() -> None:
    with pytest.raises(ValueError, match="target must be one of"):
        rbac.namespaced_rules(target="yunikorn")


def test_the_lease_is_granted_in_the_operators_namespace_only() -> None:
    documents = rbac.manifests()
    (role,) = [d for d in documents if d["kind"] == "Role"]
    assert role["metadata"]["namespace"] == rbac.NAMESPACE
    assert _verbs(role["rules"], "coordination.k8s.io", "leases") == {"get", "create", "update"}
    cluster_roles = [d for d in documents if d["kind"] == "ClusterRole"]
    assert len(cluster_roles) == 3
    for cluster_role in cluster_roles:
        assert not _verbs(cluster_role["rules"], "coordination.k8s.io", "leases")


def test_cluster_scoped_reads_are_apart_from_the_namespaced_rules() -> None:
    namespaced, cluster = rbac.namespaced_rules(), rbac.cluster_rules()
    # a cluster-scoped object granted through a RoleBinding would be refused
    assert _verbs(cluster, "trainer.kubeflow.org", "clustertrainingruntimes") == {"get"}
    assert not _verbs(namespaced, "trainer.kubeflow.org", "clustertrainingruntimes")
    assert _verbs(namespaced, "trainer.kubeflow.org", "trainingruntimes") == {"get"}
    assert _verbs(cluster, "wlmap.dev", "workloadmaps") == {"get", "list", "watch"}
    assert _verbs(cluster, "apiextensions.k8s.io", "customresourcedefinitions") == {
        "get",
        "list",
        "watch",
    }
    assert _verbs(cluster, "", "namespaces") == {"list", "watch"}
    assert not _verbs(cluster, "", "pods")
    for file in sorted((CORPUS / "crds").glob("*.yaml")):
        text = file.read_text(encoding="utf-8")
        names = _crd_names(text)
        group = next(
            line.split(":", 1)[1].strip()
            for line in text.splitlines()
            if line.startswith("  group:")
        )
        scope = "Cluster" if "\n  scope: Cluster" in text else "Namespaced"
        rules = namespaced if scope == "Cluster" else cluster
        assert not _verbs(rules, group, names["plural"]), (file.name, scope)


def test_namespaced_mode_binds_the_rules_in_each_served_namespace() -> None:
    documents = rbac.manifests(namespaces=("team-b", "team-a", "team-b"))
    bindings = {
        (d["kind"], d["metadata"].get("namespace"), d["roleRef"]["name"])
        for d in documents
        if d["kind"].endswith("Binding")
    }
    assert bindings == {
        ("RoleBinding", "team-a", rbac.NAME),
        ("RoleBinding", "team-b", rbac.NAME),
        ("ClusterRoleBinding", None, rbac.CLUSTER_ROLE),
        ("RoleBinding", rbac.NAMESPACE, rbac.OWN_NAMESPACE_ROLE),
    }
    cluster_wide = {
        (d["kind"], d["metadata"].get("namespace"), d["roleRef"]["name"])
        for d in rbac.manifests()
        if d["kind"].endswith("Binding")
    }
    # the selector's mode: the workload kinds read cluster-wide (as kopf watches them),
    # the namespaced rules bound by whoever labels a namespace, never cluster-wide
    assert ("ClusterRoleBinding", None, rbac.WORKLOADS_ROLE) in cluster_wide
    assert ("ClusterRoleBinding", None, rbac.NAME) not in cluster_wide
    roles = [d for d in documents if "rules" in d]
    assert roles == [d for d in rbac.manifests() if "rules" in d]  # only bindings differ


def test_no_pod_is_readable_cluster_wide_in_the_selectors_mode() -> None:
    documents = rbac.manifests()
    roles = {d["metadata"]["name"]: d for d in documents if d["kind"] == "ClusterRole"}
    bound = [
        roles[d["roleRef"]["name"]]["rules"] for d in documents if d["kind"] == "ClusterRoleBinding"
    ]
    assert len(bound) == 2
    for rules in bound:
        assert not _verbs(rules, "", "pods")
        assert not _verbs(rules, "resource.k8s.io", "resourceclaims")
        assert not _verbs(rules, "scheduling.run.ai", "podgroups")
        assert not _verbs(rules, "apps", "replicasets")
    workloads = roles[rbac.WORKLOADS_ROLE]["rules"]
    # what kopf watches: the root kinds, read only, DaemonSets never served
    assert _verbs(workloads, "jobset.x-k8s.io", "jobsets") == {"list", "watch"}
    assert _verbs(workloads, "kubeflow.org", "pytorchjobs") == {"list", "watch"}
    assert not _verbs(workloads, "apps", "daemonsets")
    assert {v for rule in workloads for v in rule["verbs"]} == {"list", "watch"}
    extra = rbac.workload_rules(extra_kinds=[("example.com", "MyJob")])
    assert _verbs(extra, "example.com", "myjobs") == {"list", "watch"}


def test_intermediate_owners_and_claims_are_watchable_and_references_readable() -> None:
    # the operator's cache lists and watches what lies between pods and workloads
    rules = _all_rules()
    watch = {"get", "list", "watch"}
    assert _verbs(rules, "apps", "replicasets") == watch
    assert _verbs(rules, "batch", "jobs") == watch
    assert _verbs(rules, "serving.knative.dev", "revisions") == watch
    assert _verbs(rules, "grove.io", "podcliques") == watch
    assert _verbs(rules, "resource.k8s.io", "resourceclaims") == {"list", "watch"}
    assert _verbs(rules, "trainer.kubeflow.org", "clustertrainingruntimes") == {"get"}
    # a PodCliqueSet's PodCliques are selected by label: listed (and watchable), not fetched
    assert _verbs(rules, "grove.io", "podcliques") == {"get", "list", "watch"}
    assert _verbs(rules, "grove.io", "podcliquescalinggroups") == {"get", "list", "watch"}


def test_extra_kinds_are_readable() -> None:
    kinds = parse_kinds(["MyJob.example.com", " Widget ", ""])
    assert kinds == [("example.com", "MyJob"), ("", "Widget")]
    rules = rbac.namespaced_rules(extra_kinds=kinds)
    assert _verbs(rules, "example.com", "myjobs") == {"get", "list", "watch"}
    assert _verbs(rules, "", "widgets") == {"get", "list", "watch"}


def test_main_writes_the_manifests(tmp_path: Path) -> None:
    assert main([str(tmp_path), "--kinds", "MyJob.example.com"]) == 0
    documents = list(yaml.safe_load_all((tmp_path / "rbac.yaml").read_text()))
    assert [d["kind"] for d in documents] == [
        "ServiceAccount",
        "ClusterRole",
        "ClusterRole",
        "ClusterRole",
        "Role",
        "ClusterRoleBinding",
        "ClusterRoleBinding",
        "RoleBinding",
    ]
    assert documents[0]["metadata"] == {
        "name": "wlmap-operator",
        "namespace": "wlmap-system",
        "labels": documents[0]["metadata"]["labels"],
    }
    for binding in documents[5:]:
        assert binding["subjects"] == [
            {"kind": "ServiceAccount", "name": "wlmap-operator", "namespace": "wlmap-system"}
        ]
    assert _verbs(documents[1]["rules"], "example.com", "myjobs") == {"get", "list", "watch"}
    policy = list(yaml.safe_load_all((tmp_path / "policy.yaml").read_text()))
    assert [d["kind"] for d in policy] == [
        "ValidatingAdmissionPolicy",
        "ValidatingAdmissionPolicyBinding",
    ]
