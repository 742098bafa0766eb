"""``wlmap infer`` on corpus CRDs: the draft passes ``wlmap validate --crd``."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.corpus import corpus_path
from wlmap.cli.main import main


def _crd(name: str) -> str:
    """The path of a corpus CRD; skips the test, naming the file, when the corpus is absent."""
    return str(corpus_path(f"crds/{name}"))


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize(
    "name",
    ["jobset.x-k8s.io_jobsets.yaml", "ray.io_rayclusters.yaml", "kubeflow.org_pytorchjobs.yaml"],
)
@pytest.mark.parametrize("fmt", ["wlmap", "karta"])
def test_draft_passes_validate_against_its_crd(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, name: str, fmt: str
) -> None:
    code, out, err = _run(capsys, "infer", "--crd", _crd(name), "--format", fmt)
    assert code == 0
    assert "guesses" in err
    draft = tmp_path / "draft.yaml"
    draft.write_text(out, encoding="utf-8")
    code, out, _ = _run(capsys, "validate", str(draft), "--crd", _crd(name))
    assert code == 0, out
    assert out.startswith("OK:")


def test_explain_shows_evidence_on_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(capsys, "infer", "--crd", _crd("ray.io_rayclusters.yaml"), "--explain")
    assert code == 0
    assert "podTemplateSpecPath: .spec.headGroupSpec.template" in out
    assert "instanceIdPath: groupName  [shape] .spec.workerGroupSpecs[].groupName" in err


def test_crd_without_pod_template_exits_with_a_message(capsys: pytest.CaptureFixture[str]) -> None:
    crd = _crd("scheduling.volcano.sh_podgroups.yaml")
    code, out, err = _run(capsys, "infer", "--crd", crd)
    assert code == 6
    assert out == ""
    assert "PodGroup.scheduling.volcano.sh v1beta1: no pod template under .spec" in err


def test_a_trainjob_takes_its_pods_from_the_runtime_crd_given_beside_it(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    trainjobs = _crd("trainer.kubeflow.org_trainjobs.yaml")
    runtimes = _crd("trainer.kubeflow.org_clustertrainingruntimes.yaml")
    code, out, _ = _run(capsys, "infer", "--crd", trainjobs)
    assert code == 0
    assert "references:" not in out
    code, out, err = _run(
        capsys, "infer", "--crd", trainjobs, "--referenced-crd", runtimes, "--explain"
    )
    assert code == 0, err
    assert "kind: ClusterTrainingRuntime" in out
    assert (
        "podTemplateSpecPath: $clusterTrainingRuntime | "
        ".spec.template.spec.replicatedJobs[]?.template.spec.template" in out
    )
    assert "reference: $clusterTrainingRuntime  [shape] .spec.runtimeRef" in err
    draft = tmp_path / "draft.yaml"
    draft.write_text(out, encoding="utf-8")
    code, out, _ = _run(capsys, "validate", str(draft), "--crd", trainjobs)
    assert code == 0, out


def test_a_referenced_crd_file_without_a_crd_is_refused(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    empty = tmp_path / "empty.yaml"
    empty.write_text("kind: ConfigMap\napiVersion: v1\nmetadata: {name: x}\n", encoding="utf-8")
    code, out, err = _run(
        capsys,
        "infer",
        "--crd",
        _crd("trainer.kubeflow.org_trainjobs.yaml"),
        "--referenced-crd",
        str(empty),
    )
    assert code == 6
    assert out == ""
    assert f"{empty}: --referenced-crd: no CustomResourceDefinition" in err
