"""Malformed CRDs, samples and pods: refused with what is wrong and where, never a crash."""

from __future__ import annotations

import copy
import random
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.corpus import corpus_crd_files, missing
from wlmap.cli.main import main
from wlmap.errors import ManifestError
from wlmap.infer import infer

from ._crds import POD_TEMPLATE, crd, obj, template

GOOD = crd(
    {
        "type": "object",
        "properties": {
            "suspend": {"type": "boolean"},
            "replicas": {"type": "integer"},
            "template": POD_TEMPLATE,
        },
    }
)
SPEC = "widgets.example.com: spec.versions[0].schema.openAPIV3Schema.properties.spec"


def _broken(path: tuple[Any, ...], value: Any) -> dict[str, Any]:
    out = copy.deepcopy(GOOD)
    node: Any = out
    for step in path[:-1]:
        node = node[step]
    node[path[-1]] = value
    return out


_VERSION = ("spec", "versions", 0, "schema", "openAPIV3Schema", "properties", "spec")


@pytest.mark.parametrize(
    ("path", "value", "message"),
    [
        (("spec",), [1], "widgets.example.com: spec: expected a map, got [1]"),
        (("spec", "names", "kind"), 7, "widgets.example.com: spec.names.kind: expected a string"),
        (("spec", "versions"), {"v1": {}}, 'spec.versions: expected a list, got {"v1": {}}'),
        (
            (*_VERSION, "properties", "suspend", "enum"),
            True,
            f"{SPEC}.properties.suspend.enum: expected a list, got true",
        ),
        (
            (*_VERSION, "properties", "replicas"),
            "integer",
            f'{SPEC}.properties.replicas: expected a schema (a map), got "integer"',
        ),
        (
            (*_VERSION, "required"),
            [{"name": "template"}],
            f"{SPEC}.required[0]: expected a field name",
        ),
        (
            (*_VERSION, "properties", "template", "properties", "spec", "items"),
            [{"type": "object"}],
            f"{SPEC}.properties.template.properties.spec.items: expected a schema (a map)",
        ),
    ],
)
def test_a_malformed_crd_is_refused_by_the_place_of_its_first_fault(
    path: tuple[Any, ...], value: Any, message: str
) -> None:
    with pytest.raises(ManifestError) as raised:
        infer(_broken(path, value))
    assert message in str(raised.value)


def test_a_sample_or_pod_whose_metadata_is_malformed_is_named() -> None:
    sample = obj({"replicas": 2, "template": template()}, name="demo")
    with pytest.raises(ManifestError, match=r"sample 2 \(Widget demo\): metadata.labels: "):
        infer(GOOD, samples=[sample, {**sample, "metadata": {"name": "demo", "labels": []}}])
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"ownerReferences": {"name": "demo"}}}
    with pytest.raises(ManifestError, match=r"pod 1 \(Pod\): metadata.ownerReferences: "):
        infer(GOOD, samples=[sample], pods=[pod])
    with pytest.raises(ManifestError, match=r"sample 1: expected an object \(a map\), got 3"):
        infer(GOOD, samples=[3])  # type: ignore[list-item]


def test_the_cli_says_what_is_wrong_with_exit_code_6(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    bad = tmp_path / "crd.yaml"
    broken = _broken((*_VERSION, "properties", "suspend", "enum"), True)
    bad.write_text(yaml.safe_dump(broken), encoding="utf-8")
    code = main(["infer", "--crd", str(bad)])
    out, err = capsys.readouterr()
    assert code == 6
    assert out == ""
    assert f"{SPEC}.properties.suspend.enum: expected a list, got true" in err
    assert "unexpected" not in err


def _places(node: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [path] if path else []
    if isinstance(node, dict):
        for key, value in node.items():
            out += _places(value, (*path, key))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            out += _places(value, (*path, index))
    return out


_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_JUNK: tuple[Any, ...] = (None, 1, "x", [], {}, [1], {"a": 1}, True, {"properties": None})


def test_corpus_crds_with_fields_replaced_by_junk_draft_or_are_refused() -> None:
    """Two fields of a real CRD replaced by values of the wrong shape: the draft still
    comes, or a ManifestError says why; never another exception."""
    files = sorted(corpus_crd_files().values())
    if not files:
        pytest.skip(missing("crds"))
    crds = [yaml.load(path.read_text(encoding="utf-8"), Loader=_LOADER) for path in files]
    rng = random.Random(7)
    outcomes = {"drafted": 0, "refused": 0}
    for _ in range(120):
        mutated = copy.deepcopy(rng.choice(crds))
        for _ in range(2):
            place = rng.choice(_places(mutated))
            node: Any = mutated
            for step in place[:-1]:
                node = node[step]
            node[place[-1]] = copy.deepcopy(rng.choice(_JUNK))
        try:
            infer(mutated)
        except ManifestError:
            outcomes["refused"] += 1
        else:
            outcomes["drafted"] += 1
    assert outcomes["drafted"] > 0 and outcomes["refused"] > 0, outcomes
