"""``wlmap export argocd``: the argocd-cm patch a user applies, its files and its errors."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from tests.unit.cli.runner import run
from wlmap.cli._exits import NO_DEFINITION, OK, USAGE

HEALTH = "resource.customizations.health."


def test_one_kind_prints_a_configmap_patch(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "export", "argocd", "jobset", "--namespace", "gitops")
    assert code == OK, err
    patch = yaml.safe_load(out)
    assert patch["kind"] == "ConfigMap"
    assert patch["metadata"]["name"] == "argocd-cm"
    assert patch["metadata"]["namespace"] == "gitops"
    assert list(patch["data"]) == [f"{HEALTH}jobset.x-k8s.io_JobSet"]
    script = patch["data"][f"{HEALTH}jobset.x-k8s.io_JobSet"]
    assert script.startswith("-- Argo CD health of JobSet.jobset.x-k8s.io")
    assert "status expressions translated" in err


def test_default_leaves_kubernetes_own_kinds_to_argocd(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = run(capsys, "export", "argocd")
    assert code == OK
    data = yaml.safe_load(out)["data"]
    assert f"{HEALTH}kubeflow.org_PyTorchJob" in data
    assert f"{HEALTH}ray.io_RayCluster" in data
    assert not any(key.endswith(("apps_Deployment", "batch_Job", ".Pod")) for key in data)
    # ascii_downcase needs Lua's string library, which Argo CD opens only when asked
    assert data["resource.customizations.useOpenLibs.serving.kserve.io_InferenceService"] == (
        "true"
    )
    assert "resource.customizations.useOpenLibs.kubeflow.org_PyTorchJob" not in data


def test_naming_a_kubernetes_kind_exports_it(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "export", "argocd", "deployment")
    assert code == OK
    assert list(yaml.safe_load(out)["data"]) == [f"{HEALTH}apps_Deployment"]


def test_output_dir_holds_the_patch_and_a_kustomize_component(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, out, _ = run(capsys, "export", "argocd", "rayjob", "-d", str(tmp_path / "argocd"))
    assert code == OK
    assert "wrote argocd-cm-health.yaml, kustomization.yaml" in out
    component = yaml.safe_load((tmp_path / "argocd" / "kustomization.yaml").read_text())
    assert component["kind"] == "Component"
    assert component["patches"] == [{"path": "argocd-cm-health.yaml"}]
    patch = yaml.safe_load((tmp_path / "argocd" / "argocd-cm-health.yaml").read_text())
    assert list(patch["data"]) == [f"{HEALTH}ray.io_RayJob"]


def test_rules_left_out_are_named_with_definition_and_field(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, _, err = run(capsys, "export", "argocd", "podcliqueset")
    assert code == OK
    assert (
        "left out of the health check: grove-io-podcliqueset-v1alpha1: "
        "spec.structureDefinition.rootComponent.statusDefinition.conditionsDefinition.path: "
        "cannot translate $podCliques (a variable given from outside the object)"
    ) in err
    assert "(3 left out)" in err


def test_unknown_kind_and_target_are_clear_errors(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "export", "argocd", "nosuchkind")
    assert code == NO_DEFINITION
    assert "no definition covers the type 'nosuchkind'" in err
    assert "Traceback" not in err
    code, _, err = run(capsys, "export", "flux")
    assert code == USAGE
    assert "'flux' is not 'argocd'" in err
