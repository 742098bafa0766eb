"""``wlmap describe`` text: children under their own parent, the status rule with the facts
it decided on, one line per gang, and no rows for roles the object does not have."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from tests.corpus import corpus_path
from tests.unit.cli.runner import run
from wlmap.cli._exits import OK


def describe(capsys: pytest.CaptureFixture[str], relative: str) -> str:
    code, out, err = run(capsys, "describe", "-f", str(corpus_path(relative)))
    assert (code, err) == (OK, "")
    return out


def test_each_replicated_job_holds_its_own_pods(capsys: pytest.CaptureFixture[str]) -> None:
    out = describe(capsys, "jobset/multiple-depends-on.yaml")
    assert out.split("\n\n")[1].splitlines() == [
        "COMPONENT         INSTANCE             REPLICAS  PODS  GPU/POD  GPUS  CPU  MEMORY",
        "jobset            -                    -         -     -        -     -    -",
        "├─ replicatedJob  dataset-initializer  1         -     -        -     -    -",
        "│  └─ pod         dataset-initializer  1         1     0        0     0    0",
        "├─ replicatedJob  model-initializer    1         -     -        -     -    -",
        "│  └─ pod         model-initializer    1         1     0        0     0    0",
        "└─ replicatedJob  worker               1         -     -        -     -    -",
        "   └─ pod         worker               4         4     0        0     0    0",
    ]


def test_each_dynamo_service_holds_its_own_pods(capsys: pytest.CaptureFixture[str]) -> None:
    rows = describe(capsys, "nvidia-dynamo/trtllm-disagg-multinode.yaml").split("\n\n")[1]
    assert [line.split()[:2] for line in rows.splitlines()[1:]] == [
        ["dynamographdeployment", "-"],
        ["├─", "service"],
        ["│", "└─"],
        ["├─", "service"],
        ["│", "└─"],
        ["└─", "service"],
        ["└─", "pod"],
    ]
    assert "│  └─ pod              prefill   2         2     4        8" in rows


def test_a_ray_worker_group_holds_its_workers_beside_the_head(
    capsys: pytest.CaptureFixture[str],
) -> None:
    rows = describe(capsys, "ray-raycluster/complete.yaml").split("\n\n")[1].splitlines()
    assert [line[:28].rstrip() for line in rows[1:]] == [
        "raycluster      -",
        "├─ head         -",
        "└─ workerGroup  small-group",
        "   └─ worker    small-group",
    ]


def test_one_line_per_gang(capsys: pytest.CaptureFixture[str]) -> None:
    out = describe(capsys, "jobset/group.yaml")  # no replicatedJob waits for another
    assert [line for line in out.splitlines() if line.startswith("Gang")] == [
        "Gang jobset: at least 4 pods of pod; subgroups replicatedJob >= 4"
    ]


def test_one_line_per_start_stage_saying_why(capsys: pytest.CaptureFixture[str]) -> None:
    # the worker is created once both initializers are Complete: a gang of all six pods
    # could never be satisfied
    out = describe(capsys, "jobset/multiple-depends-on.yaml")
    assert [line for line in out.splitlines() if line.startswith("Gang")] == [
        "Gang jobset (dataset-initializer): at least 2 pods of pod; subgroups replicatedJob >= 2",
        "Gang jobset (worker): at least 4 pods of pod; subgroups replicatedJob >= 4; "
        "replicatedJob worker starts after dataset-initializer, model-initializer complete: "
        "separate gang",
    ]


def test_a_workload_asking_for_no_pods_has_no_gang(capsys: pytest.CaptureFixture[str]) -> None:
    out = describe(capsys, "jobset/sample-v1alpha2.yaml")  # an empty spec
    assert "Gang" not in out
    assert out.rstrip().endswith("Totals: 0 pods, 0 GPUs, 0 CPU, 0 memory")


def test_no_podgroup_of_zero_pods(capsys: pytest.CaptureFixture[str]) -> None:
    # Single-node prefill/decode only: the definition's multi-node gang has no pods.
    source = str(corpus_path("kserve-llminferenceservice/gpt-oss-pd-disaggregation.yaml"))
    for target in ("kai", "volcano", "workload-api"):
        code, out, err = run(capsys, "podgroups", "-f", source, "--target", target, "-o", "json")
        assert code == OK
        assert json.loads(out) == {"items": [], "count": 0}
        assert "no gang-scheduling objects" in err
    code, out, _ = run(capsys, "podgroups", "-f", source, "--target", "kai")
    assert "minMember: 0" not in out


def test_absent_roles_are_not_rows(capsys: pytest.CaptureFixture[str]) -> None:
    out = describe(capsys, "kserve-llminferenceservice/gpt-oss-pd-disaggregation.yaml")
    names = [line.split()[-1] for line in out.split("\n\n")[1].splitlines()[1:]]
    assert "tokenizer" not in out
    assert "scheduler" not in out
    assert out.split("\n\n")[1].splitlines()[1:] == [
        "llminferenceservice  -         -         -     -        -     -    -",
        "├─ workload          decode    1         1     1        1     0    0",
        "└─ workload          prefill   2         2     1        2     0    0",
    ], names


def test_status_shows_the_rule_and_the_fields_it_read(
    capsys: pytest.CaptureFixture[str],
) -> None:
    out = describe(capsys, "argo-workflows/controller-testdata-dag-retry-succeeded-status.yaml")
    status = [line for line in out.splitlines() if line.startswith("Status: Initializing")]
    assert status == [
        "Status: Initializing  [initializing[0]: .spec.suspend=null, .status.phase=null]"
    ]
    assert " -> " not in out  # no jq text (explain keeps it)


def test_json_evidence_of_an_expression_carries_its_facts(
    capsys: pytest.CaptureFixture[str],
) -> None:
    source = corpus_path("argo-workflows/controller-testdata-dag-retry-succeeded-status.yaml")
    code, out, _ = run(capsys, "describe", "-f", str(source), "-o", "yaml")
    assert code == OK
    matched = yaml.safe_load(out)["explanation"]["matched"]
    assert matched[0]["evidence"][0]["facts"] == {".spec.suspend": None, ".status.phase": None}


def test_three_levels_nest_under_their_own_role(capsys: pytest.CaptureFixture[str]) -> None:
    rows = describe(capsys, "lws-disaggregatedset/3role.yaml").split("\n\n")[1].splitlines()
    assert [line[:28].rstrip() for line in rows[1:]] == [
        "disaggregatedset  -",
        "└─ slice          -",
        "   ├─ role        prefill",
        "   │  ├─ leader   prefill",
        "   │  └─ worker   prefill",
        "   ├─ role        decode",
        "   │  ├─ leader   decode",
        "   │  └─ worker   decode",
        "   └─ role        encode",
        "      ├─ leader   encode",
        "      └─ worker   encode",
    ]


DATA = Path(__file__).parent / "data"


def test_a_child_no_parent_instance_claims_hangs_one_level_up(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # A made-up kind: sidecar "east" belongs to zone "east"; "logger" matches no zone of
    # the two, so it is drawn under the pool rather than under one zone it may not be in.
    code, out, err = run(
        capsys,
        "--definitions",
        str(DATA / "pool-definition.yaml"),
        "describe",
        "-f",
        str(DATA / "pool.yaml"),
    )
    assert (code, err) == (OK, "")
    assert [line[:24].rstrip() for line in out.split("\n\n")[1].splitlines()[1:]] == [
        "pool           -",
        "├─ zone        east",
        "│  └─ sidecar  east",
        "├─ zone        west",
        "└─ sidecar     logger",
    ]
