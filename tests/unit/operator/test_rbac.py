"""The operator's RBAC: generated from the catalog, committed unchanged, least privilege."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.corpus import CORPUS
from wlmap.catalog import builtin_registry
from wlmap.operator import rbac
from wlmap.operator.settings import parse_kinds

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


@pytest.mark.parametrize("name", sorted(rbac.render()))
def test_generated_files_have_not_drifted(name: str) -> None:
    committed = (COMMITTED / name).read_text(encoding="utf-8")
    assert committed == rbac.render()[name], (
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
        pytest.skip("the corpus CRDs are not available")
    for file in files:
        names = _crd_names(file.read_text(encoding="utf-8"))
        assert rbac.plural(names["kind"]) == names["plural"], file.name


def test_every_catalog_root_kind_is_readable() -> None:
    rules = rbac.cluster_role_rules()
    for entry in builtin_registry():
        gvk = entry.definition.root_gvk
        assert gvk is not None
        assert {"get", "list", "watch"} <= _verbs(rules, gvk.group, rbac.plural(gvk.kind)), gvk


def test_writes_only_what_the_operator_writes() -> None:
    rules = rbac.cluster_role_rules()
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
        ("wlmap.dev", "workloadmaps/status"),
        ("run.ai", "kartas/status"),
        ("scheduling.run.ai", "podgroups"),
        ("scheduling.volcano.sh", "podgroups"),
        ("scheduling.k8s.io", "podgroups"),
        ("scheduling.k8s.io", "workloads"),
    }
    assert _verbs(rules, "", "pods") == {"get", "list", "watch", "patch"}
    assert _verbs(rules, "", "events") == {"create"}
    assert all("*" not in rule["verbs"] + rule["resources"] + rule["apiGroups"] for rule in rules)


def test_intermediate_owners_and_references_are_readable() -> None:
    rules = rbac.cluster_role_rules()
    assert _verbs(rules, "apps", "replicasets") >= {"get"}
    assert _verbs(rules, "batch", "jobs") >= {"get"}
    assert _verbs(rules, "serving.knative.dev", "revisions") == {"get"}
    assert _verbs(rules, "trainer.kubeflow.org", "clustertrainingruntimes") == {"get"}
    # a PodCliqueSet's PodCliques are selected by label: listed (and watchable), not fetched
    assert _verbs(rules, "grove.io", "podcliques") == {"get", "list", "watch"}
    assert _verbs(rules, "grove.io", "podcliquescalinggroups") == {"get", "list", "watch"}


def test_extra_kinds_are_readable() -> None:
    kinds = parse_kinds(["MyJob.example.com", " Widget ", ""])
    assert kinds == [("example.com", "MyJob"), ("", "Widget")]
    rules = rbac.cluster_role_rules(extra_kinds=kinds)
    assert _verbs(rules, "example.com", "myjobs") == {"get", "list", "watch"}
    assert _verbs(rules, "", "widgets") == {"get", "list", "watch"}


def test_main_writes_the_manifests(tmp_path: Path) -> None:
    assert rbac.main([str(tmp_path), "--kinds", "MyJob.example.com"]) == 0
    documents = list(yaml.safe_load_all((tmp_path / rbac.RBAC_FILE).read_text()))
    assert [d["kind"] for d in documents] == ["ServiceAccount", "ClusterRole", "ClusterRoleBinding"]
    assert documents[0]["metadata"] == {
        "name": "wlmap-operator",
        "namespace": "wlmap-system",
        "labels": documents[0]["metadata"]["labels"],
    }
    assert documents[2]["subjects"] == [
        {"kind": "ServiceAccount", "name": "wlmap-operator", "namespace": "wlmap-system"}
    ]
    assert _verbs(documents[1]["rules"], "example.com", "myjobs") == {"get", "list", "watch"}
