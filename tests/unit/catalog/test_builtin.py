"""The built-in catalog: every file loads and validates, names match slugs, kinds are unique."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from wlmap.catalog import builtin_definitions, builtin_registry
from wlmap.catalog.reference import render
from wlmap.definitions import slug, validate_definition


def test_every_definition_is_valid_without_errors() -> None:
    definitions = builtin_definitions()
    assert len(definitions) >= 10
    for definition in definitions:
        errors = [p for p in validate_definition(definition) if p.severity == "error"]
        assert errors == [], definition.name


def test_file_names_and_names_are_slugs_of_the_root_kind() -> None:
    folder = resources.files("wlmap.catalog").joinpath("definitions")
    files = sorted(p.name for p in folder.iterdir() if p.name.endswith(".yaml"))
    names = []
    for definition in builtin_definitions():
        assert definition.root_gvk is not None
        assert definition.name == slug(definition.root_gvk)
        names.append(f"{definition.name}.yaml")
    assert sorted(names) == files


def test_one_definition_per_kind_and_version() -> None:
    registry = builtin_registry()
    assert registry.collisions == []
    assert len(registry) == len(builtin_definitions())


def test_catalog_page_has_not_drifted() -> None:
    page = Path(__file__).resolve().parents[3] / "docs" / "catalog.md"
    assert page.read_text(encoding="utf-8") == render(), "docs/catalog.md is stale: run `make docs`"
