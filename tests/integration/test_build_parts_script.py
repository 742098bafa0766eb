"""scripts/build-cluster-parts.sh, build-kueue.sh, build-jobset.sh and build-trainer.sh:
what they build and copy, reuse, and missing Go.

The fake ``go`` of test_build_script.py stands in for the toolchain; its ``list -m`` names
a folder laid out as KWOK's, Kueue's, JobSet's and Trainer's modules are, with the files
the scripts copy.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.integration.clusterparts import PARTS, PARTS_SCRIPT, STAGES
from tests.integration.kueue import KUEUE_SCRIPT
from tests.integration.managers import JOBSET_SCRIPT, TRAINER_SCRIPT
from tests.integration.test_build_script import FAKE_GO, SAFETY
from tests.integration.testcluster import MISSING_GO, BuildUnavailable, build_binaries

pytestmark = pytest.mark.skipif(
    shutil.which("bash") is None or shutil.which("flock") is None,
    reason="the build script needs bash and flock",
)
FOLDER = "kubernetes-v1.36.3-kwok-v0.8.0"  # the script's default versions
MODULE_STAGES = {
    "node-initialize": "node/fast",
    "node-heartbeat-with-lease": "node/heartbeat-with-lease",
    "pod-ready": "pod/fast",
    "pod-complete": "pod/fast",
    "pod-delete": "pod/fast",
}

# Kueue's module: CRDs, a conversion patch for each of five CRDs (and one for a CRD its
# install leaves without), the webhook configurations
CONVERTED = ("localqueues", "clusterqueues", "cohorts", "workloads", "multikueueclusters")
KUEUE_FILES = (
    "crd/bases/kueue.x-k8s.io_workloads.yaml",
    "crd/bases/kueue.x-k8s.io_topologies.yaml",
    *(f"crd/patches/webhook_in_{crd}.yaml" for crd in (*CONVERTED, "resourceflavors")),
    "webhook/manifests.yaml",
)
# JobSet's module (config/components) and Trainer's (manifests/base): CRDs and webhooks;
# Trainer's CRD folder holds a kustomization the script leaves
JOBSET_FILES = ("crd/bases/jobset.x-k8s.io_jobsets.yaml", "webhook/manifests.yaml")
TRAINER_FILES = (
    "crds/trainer.kubeflow.org_trainjobs.yaml",
    "crds/trainer.kubeflow.org_clustertrainingruntimes.yaml",
    "crds/kustomization.yaml",
    "webhook/manifests.yaml",
)


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    """The environment of a run: the fake go first on PATH, a cache root of its own."""
    tools, module = tmp_path / "bin", tmp_path / "kwok-module"
    tools.mkdir()
    (tools / "go").write_text(FAKE_GO)
    (tools / "go").chmod(0o755)
    (tmp_path / "go.mod").write_text("module k8s.io/kubernetes\n")
    for stage, folder in MODULE_STAGES.items():
        (module / "kustomize" / "stage" / folder).mkdir(parents=True, exist_ok=True)
        (module / "kustomize" / "stage" / folder / f"{stage}.yaml").write_text(f"# {stage}\n")
    files = [
        *(module / "config/components" / file for file in KUEUE_FILES),
        # JobSet and Trainer come from modules of their own: Kueue's CRDs are copied by glob
        *(tmp_path / "jobset-module/config/components" / file for file in JOBSET_FILES),
        *(tmp_path / "trainer-module/manifests/base" / file for file in TRAINER_FILES),
    ]
    for file in files:
        file.parent.mkdir(parents=True, exist_ok=True)
        file.write_text(f"# {file.name}\n")
    (tmp_path / "release").touch()  # no build waits
    versions = ("KUBERNETES_VERSION", "KWOK_VERSION")
    return {
        **{k: v for k, v in os.environ.items() if k not in versions},
        "PATH": f"{tools}{os.pathsep}{os.environ['PATH']}",
        "WLMAP_TESTBIN_CACHE": str(tmp_path / "testbin"),
        "FAKE_GO_CALLS": str(tmp_path / "go-calls"),
        "FAKE_GO_MOD": str(tmp_path / "go.mod"),
        "FAKE_GO_MODULE_DIR": str(module),
        "FAKE_GO_RELEASE": str(tmp_path / "release"),
    }


def run(env: dict[str, str], script: Path = PARTS_SCRIPT) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", str(script)],
        env=env,
        capture_output=True,
        text=True,
        timeout=SAFETY,
        check=False,
    )


def test_the_parts_and_kwoks_stages_are_built_once_then_reused(
    env: dict[str, str], tmp_path: Path
) -> None:
    out = tmp_path / "testbin" / FOLDER
    done = run(env)
    assert (done.returncode, done.stdout) == (0, f"{out}\n"), done.stderr
    calls = (tmp_path / "go-calls").read_text().splitlines()
    built = [call.split(" -o ")[1].split()[0] for call in calls if call.startswith("build ")]
    assert built == [
        f"{out}/kube-scheduler.partial",
        f"{out}/kube-controller-manager.partial",
        f"{out}/kwok.partial",
    ]
    assert sorted(p.name for p in out.iterdir()) == [
        "kube-controller-manager",
        "kube-scheduler",
        "kwok",
        "stages",
    ]
    stages = {p.stem: p.read_text() for p in (out / "stages").iterdir()}
    assert stages == {stage: f"# {stage}\n" for stage in MODULE_STAGES}
    assert set(STAGES) <= set(stages)  # the harness finds every stage it passes to KWOK
    progress = done.stderr.splitlines()
    assert all(line.startswith("build-cluster-parts: [") for line in progress)
    assert any(line.endswith("kwok: compiling: done in 0 s") for line in progress)
    (tmp_path / "go-calls").unlink()
    again = run(env)
    assert (again.returncode, again.stdout, again.stderr) == (0, f"{out}\n", "")
    assert not (tmp_path / "go-calls").exists()


def test_kueue_and_its_crds_and_webhooks_are_built_once_then_reused(
    env: dict[str, str], tmp_path: Path
) -> None:
    out = tmp_path / "testbin" / "kueue-v0.17.0"
    done = run(env, KUEUE_SCRIPT)
    assert (done.returncode, done.stdout) == (0, f"{out}\n"), done.stderr
    assert sorted(str(p.relative_to(out)) for p in out.rglob("*") if p.is_file()) == sorted(
        [
            "kueue",
            "config/crd/kueue.x-k8s.io_topologies.yaml",
            "config/crd/kueue.x-k8s.io_workloads.yaml",
            *(f"config/crd-patches/webhook_in_{crd}.yaml" for crd in CONVERTED),
            "config/webhook/manifests.yaml",
        ]
    )
    (tmp_path / "go-calls").unlink()
    again = run(env, KUEUE_SCRIPT)
    assert (again.returncode, again.stdout, again.stderr) == (0, f"{out}\n", "")
    assert not (tmp_path / "go-calls").exists()


@pytest.mark.parametrize(
    ("script", "folder", "binary", "crds"),
    [
        (JOBSET_SCRIPT, "jobset-v0.12.0", "jobset", ["jobset.x-k8s.io_jobsets.yaml"]),
        (
            TRAINER_SCRIPT,
            "trainer-v2.3.0",
            "trainer",
            [
                "trainer.kubeflow.org_clustertrainingruntimes.yaml",
                "trainer.kubeflow.org_trainjobs.yaml",
            ],
        ),
    ],
)
def test_a_controller_and_its_crds_and_webhooks_are_built_once_then_reused(
    env: dict[str, str], tmp_path: Path, script: Path, folder: str, binary: str, crds: list[str]
) -> None:
    out = tmp_path / "testbin" / folder
    env = {**env, "FAKE_GO_MODULE_DIR": str(tmp_path / f"{binary}-module")}
    done = run(env, script)
    assert (done.returncode, done.stdout) == (0, f"{out}\n"), done.stderr
    assert sorted(str(p.relative_to(out)) for p in out.rglob("*") if p.is_file()) == sorted(
        [binary, *(f"config/crd/{crd}" for crd in crds), "config/webhook/manifests.yaml"]
    )
    (tmp_path / "go-calls").unlink()
    again = run(env, script)
    assert (again.returncode, again.stdout, again.stderr) == (0, f"{out}\n", "")
    assert not (tmp_path / "go-calls").exists()


def test_missing_go_skips_the_tests_that_need_the_parts(
    env: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tools = tmp_path / "no-go"
    tools.mkdir()
    for tool in ("bash", "mkdir", "flock"):
        (tools / tool).symlink_to(shutil.which(tool) or tool)
    for name, value in {**env, "PATH": str(tools)}.items():
        monkeypatch.setenv(name, value)
    assert run({**env, "PATH": str(tools)}).returncode == MISSING_GO
    with pytest.raises(BuildUnavailable, match="need Go to build kube-scheduler"):
        build_binaries(progress=lambda _: None, script=PARTS_SCRIPT, what=PARTS)
