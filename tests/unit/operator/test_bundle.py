"""The overlay that serves chosen namespaces: rendered by kustomize itself where kubectl is
installed, and the generator's refusals of bad arguments."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from wlmap.operator.deploy import rbac
from wlmap.operator.deploy.admission import policy_manifests
from wlmap.operator.deploy.bundle import main

BASE = Path(__file__).resolve().parents[3] / "deploy" / "operator"


def _key(obj: dict[str, Any]) -> tuple[str, str, str]:
    meta = obj["metadata"]
    return (obj["kind"], str(meta.get("namespace")), meta["name"])


def _built(overlay: Path) -> dict[tuple[str, str, str], Any]:
    kubectl = shutil.which("kubectl")
    if kubectl is None:
        pytest.skip("kubectl (with its built-in kustomize) is not installed")
    built = subprocess.run(
        [kubectl, "kustomize", str(overlay)], check=True, capture_output=True, text=True
    )
    return {_key(o): o for o in yaml.safe_load_all(built.stdout) if o}


def _environment(objects: dict[tuple[str, str, str], Any]) -> dict[str, str]:
    deployment = objects[("Deployment", rbac.NAMESPACE, rbac.NAME)]
    (container,) = deployment["spec"]["template"]["spec"]["containers"]
    return {e["name"]: e["value"] for e in container["env"]}


def test_the_overlay_binds_the_rules_in_the_served_namespaces(tmp_path: Path) -> None:
    overlay = tmp_path / "serving-two"
    assert main([str(overlay), "--namespaces", "team-b,team-a", "--base", str(BASE)]) == 0
    objects = _built(overlay)
    served = ("team-a", "team-b")
    expected = rbac.manifests(namespaces=served) + policy_manifests(namespaces=served)
    for obj in expected:
        assert objects.get(_key(obj)) == obj, _key(obj)
    assert ("ClusterRoleBinding", "None", rbac.NAME) not in objects
    assert ("ClusterRoleBinding", "None", rbac.WORKLOADS_ROLE) not in objects
    env = _environment(objects)
    assert env["WLMAP_NAMESPACES"] == "team-a,team-b"
    assert env["WLMAP_TARGET"] == "kai"  # the base's settings stay


@pytest.mark.parametrize("namespaces", [[], ["--namespaces", "team-a"]], ids=["all", "one"])
def test_the_overlay_keeps_another_targets_gang_objects(
    tmp_path: Path, namespaces: list[str]
) -> None:
    overlay = tmp_path / "volcano"
    assert main([str(overlay), "--target", "volcano", *namespaces, "--base", str(BASE)]) == 0
    objects = _built(overlay)
    served = tuple(namespaces[1:])
    expected = rbac.manifests(namespaces=served, target="volcano")
    for obj in expected + policy_manifests(namespaces=served):
        assert objects.get(_key(obj)) == obj, _key(obj)
    assert _environment(objects)["WLMAP_TARGET"] == "volcano"
    role = objects[("ClusterRole", "None", rbac.NAME)]
    groups = {g for rule in role["rules"] if "delete" in rule["verbs"] for g in rule["apiGroups"]}
    assert groups == {"scheduling.volcano.sh"}


def test_the_overlay_serves_the_namespaces_another_selector_picks(tmp_path: Path) -> None:
    overlay = tmp_path / "team-ml"
    assert main([str(overlay), "--namespace-selector", "team=ml", "--base", str(BASE)]) == 0
    objects = _built(overlay)
    for obj in rbac.manifests() + policy_manifests(namespace_selector="team=ml"):
        assert objects.get(_key(obj)) == obj, _key(obj)
    assert _environment(objects)["WLMAP_NAMESPACE_SELECTOR"] == "team=ml"


def test_the_bundle_grants_the_gang_objects_of_its_deployments_target() -> None:
    deployment = yaml.safe_load((BASE / "deployment.yaml").read_text(encoding="utf-8"))
    (container,) = deployment["spec"]["template"]["spec"]["containers"]
    env = {e["name"]: e["value"] for e in container["env"]}
    committed = list(yaml.safe_load_all((BASE / "rbac.yaml").read_text(encoding="utf-8")))
    role = next(o for o in committed if o and o["kind"] == "ClusterRole")
    assert role["rules"] == rbac.namespaced_rules(target=env["WLMAP_TARGET"])


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--namespaces", "Team_A"], "not a namespace name: Team_A"),
        (["--namespaces", "a", "--kinds", "MyJob.example.com"], "--kinds belongs to the base"),
        (["--namespaces", "a", "--base", "nowhere"], "no kustomization.yaml there"),
        (["--target", "yunikorn"], "invalid choice: 'yunikorn'"),
        (["--namespace-selector", "team in (a)"], "--namespace-selector: label selector"),
        (["--helm", "--target", "volcano"], "--helm writes the whole chart"),
        (["--helm", "--base", "nowhere"], "no deployment.yaml there"),
    ],
)
def test_bad_arguments_are_refused_with_the_reason(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], arguments: list[str], message: str
) -> None:
    with pytest.raises(SystemExit) as stopped:
        main([str(tmp_path / "overlay"), *arguments])
    assert stopped.value.code == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "overlay").exists()


def test_the_overlay_needs_its_own_folder(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main([str(BASE), "--namespaces", "a", "--base", str(BASE)])
    assert "a folder of its own" in capsys.readouterr().err
