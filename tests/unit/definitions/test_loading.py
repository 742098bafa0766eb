"""Reading definitions: Karta files unchanged, lists, files and folders, malformed input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from tests.unit.definitions.samples import sample
from wlmap.definitions import GenericStatus, load_definitions, parse_definitions
from wlmap.errors import DefinitionError


def test_karta_file_loads_unchanged_with_crd_defaults_applied() -> None:
    [definition] = parse_definitions(yaml.safe_dump(sample()))
    assert (definition.api_version, definition.kind, definition.name) == (
        "run.ai/v1alpha1",
        "Karta",
        "sample",
    )
    conditions = definition.root.status_definition.conditions_definition  # type: ignore[union-attr]
    assert conditions is not None
    assert (conditions.type_field_name, conditions.status_field_name) == ("type", "status")
    assert (conditions.reason_field_name, conditions.message_field_name) == ("reason", "message")
    mapped = definition.root.status_definition.status_mappings.entries()  # type: ignore[union-attr]
    assert [s for s, _ in mapped] == [GenericStatus.RUNNING, GenericStatus.COMPLETED]


def test_workloadmap_kind_and_lists() -> None:
    one = sample(apiVersion="wlmap.dev/v1alpha1", kind="WorkloadMap")
    two = sample()
    two["metadata"] = {"name": "second"}
    text = yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": [one, two]})
    assert [d.name for d in parse_definitions(text)] == ["sample", "second"]


def test_multi_document_and_folders(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text(yaml.safe_dump_all([sample(), sample(metadata={"name": "b"})]))
    (tmp_path / "nested").mkdir()
    (tmp_path / "nested" / "c.json").write_text(json.dumps(sample(metadata={"name": "c"})))
    names = [d.name for d in load_definitions(tmp_path)]
    assert names == ["sample", "b", "c"]


def test_malformed_yaml_names_the_line() -> None:
    with pytest.raises(DefinitionError) as caught:
        parse_definitions("kind: Karta\nspec: [unclosed\n", "bad.yaml")
    [problem] = caught.value.problems
    assert problem.definition == "bad.yaml"
    assert problem.path.startswith("line ")
    assert "malformed YAML" in problem.message


def test_other_kinds_are_rejected_by_name() -> None:
    with pytest.raises(
        DefinitionError, match="expected kind Karta or WorkloadMap, found 'ConfigMap'"
    ):
        parse_definitions("apiVersion: v1\nkind: ConfigMap\n", "cm.yaml")


def test_unreadable_file(tmp_path: Path) -> None:
    with pytest.raises(DefinitionError, match="cannot read"):
        load_definitions(tmp_path / "missing.yaml")


def test_problems_from_several_files_are_all_reported(tmp_path: Path) -> None:
    bad = sample()
    bad["spec"]["structureDefinition"]["rootComponent"].pop("statusDefinition")
    (tmp_path / "1.yaml").write_text(yaml.safe_dump(bad))
    (tmp_path / "2.yaml").write_text("{")
    with pytest.raises(DefinitionError) as caught:
        load_definitions(tmp_path)
    assert {p.definition for p in caught.value.problems} == {"sample", str(tmp_path / "2.yaml")}
