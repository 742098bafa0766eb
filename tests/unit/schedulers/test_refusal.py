"""No writer hands a scheduler a wrong gang: when what a gang is made of fails to evaluate,
or its minimum is larger than any cluster holds, ``wlmap podgroups`` prints no object for
it and fails, and the operator writes none, by one rule (``wlmap.schedulers.gang_refusal``)."""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

import pytest
import yaml

from tests.corpus import corpus_object, corpus_path
from tests.unit.cli.runner import run
from wlmap.app import definitions_in_use
from wlmap.cli._exits import GANG_REFUSED, OK
from wlmap.operator.core.settings import Settings
from wlmap.operator.gangs.groups import Desired
from wlmap.operator.gangs.reconcile import interpreted
from wlmap.schedulers import MAX_GANG_MEMBERS, PROFILES, GangRefusal, gang_refusal
from wlmap.sources.manifests import Manifest
from wlmap.sources.workloads import WorkloadReader

LWS = "lws-leaderworkerset/sample-v1.yaml"
CATALOG_FILE = "leaderworkerset-x-k8s-io-leaderworkerset-v1.yaml"
WORKER_PATH = "(.spec.leaderWorkerTemplate.size // 1) - 1"
HOSTILE = ['error("x")', "-3", "2.5"]


def _definition(tmp_path: Path, worker_replicas: str) -> Path:
    """The built-in LeaderWorkerSet definition with another worker replicas path."""
    text = (files("wlmap.catalog") / "definitions" / CATALOG_FILE).read_text(encoding="utf-8")
    assert WORKER_PATH in text
    path = tmp_path / "lws.yaml"
    path.write_text(text.replace(WORKER_PATH, yaml.safe_dump(worker_replicas).split("\n")[0]))
    return path


def _podgroups(
    capsys: pytest.CaptureFixture[str], definition: Path, target: str, *more: str
) -> tuple[int, str, str]:
    files = [arg for source in (LWS, *more) for arg in ("-f", str(corpus_path(source)))]
    return run(capsys, "--definitions", str(definition), "podgroups", *files, "--target", target)


@pytest.mark.parametrize("target", sorted(PROFILES))
def test_the_lws_sample_gets_its_gang_with_sound_inputs(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, target: str
) -> None:
    code, out, _ = _podgroups(capsys, _definition(tmp_path, WORKER_PATH), target)
    assert code == OK
    assert [doc for doc in yaml.safe_load_all(out) if doc]  # the objects the others lack


@pytest.mark.parametrize("hostile", HOSTILE)
@pytest.mark.parametrize("target", sorted(PROFILES))
def test_failed_gang_inputs_print_no_object_and_fail(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, target: str, hostile: str
) -> None:
    code, out, err = _podgroups(capsys, _definition(tmp_path, hostile), target)
    assert code == GANG_REFUSED
    assert out == ""
    assert "LeaderWorkerSet/leaderworkerset-sample: no gang objects" in err


@pytest.mark.parametrize("target", sorted(PROFILES))
def test_a_gang_larger_than_a_cluster_holds_is_refused_by_name(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, target: str
) -> None:
    workers = MAX_GANG_MEMBERS  # with the leader, one pod more than the cap
    code, out, err = _podgroups(capsys, _definition(tmp_path, str(workers)), target)
    assert code == GANG_REFUSED
    assert out == ""
    assert f"gang 'group' needs {workers + 1:,} pods at once" in err
    assert f"{MAX_GANG_MEMBERS:,}" in err


def test_a_gang_at_the_cap_is_printed(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, _ = _podgroups(capsys, _definition(tmp_path, str(MAX_GANG_MEMBERS - 1)), "kai")
    assert code == OK
    (group,) = list(yaml.safe_load_all(out))
    assert group["spec"]["minMember"] == MAX_GANG_MEMBERS


def test_the_other_workloads_in_the_input_still_get_their_gangs(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    jobset = "jobset/multiple-depends-on.yaml"
    code, out, _ = _podgroups(capsys, _definition(tmp_path, "-3"), "kai", jobset)
    assert code == GANG_REFUSED
    owners = [g["metadata"]["labels"]["wlmap.dev/workload"] for g in yaml.safe_load_all(out)]
    # one object per start stage (its initializers, then its workers), all the JobSet's
    assert owners == [corpus_object(jobset, "JobSet")["metadata"]["name"]] * 2


def _operator_outcome(definition: Path) -> tuple[object, GangRefusal | None]:
    """What the operator's reconciliation would write for the LWS sample (kai)."""
    registry = definitions_in_use(files=[str(definition)])
    obj = corpus_object(LWS, "LeaderWorkerSet")
    obj["metadata"]["uid"] = "0000-lws"
    reader = WorkloadReader(registry, [Manifest(obj, "lws")], pods_listed=True)
    entry = reader.entry(obj)
    assert entry is not None
    view, desired = interpreted(Settings(target="kai"), reader, entry, obj)
    return desired, gang_refusal(view)


@pytest.mark.parametrize("hostile", HOSTILE)
def test_the_operator_refuses_by_the_same_rule(tmp_path: Path, hostile: str) -> None:
    desired, refusal = _operator_outcome(_definition(tmp_path, hostile))
    assert isinstance(desired, GangRefusal) and desired == refusal
    assert desired.evaluation_failed


def test_the_operator_refuses_a_gang_larger_than_a_cluster_holds(tmp_path: Path) -> None:
    desired, _ = _operator_outcome(_definition(tmp_path, str(MAX_GANG_MEMBERS)))
    assert isinstance(desired, GangRefusal) and not desired.evaluation_failed
    assert "gang 'group'" in desired.message
    sound, _ = _operator_outcome(_definition(tmp_path, WORKER_PATH))
    assert isinstance(sound, Desired)
