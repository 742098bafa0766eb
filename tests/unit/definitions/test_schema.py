"""The committed JSON Schema and CRD are exactly what the models generate."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from wlmap.definitions import schema

COMMITTED = Path(__file__).resolve().parents[3] / "deploy" / "crds"


@pytest.mark.parametrize("name", sorted(schema.render()))
def test_generated_files_have_not_drifted(name: str) -> None:
    committed = (COMMITTED / name).read_text(encoding="utf-8")
    assert committed == schema.render()[name], (
        f"deploy/crds/{name} is out of date: run `make schema` and commit the result"
    )


def test_crd_is_structural() -> None:
    def walk(node: object) -> None:
        if isinstance(node, dict):
            assert "$ref" not in node and "anyOf" not in node and "title" not in node
            assert node.get("additionalProperties") is not False
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    crd = yaml.safe_load(schema.render()[schema.CRD_FILE])
    walk(crd["spec"]["versions"][0]["schema"])
    assert crd["spec"]["scope"] == "Cluster"


def test_schema_accepts_what_the_models_accept() -> None:
    props = schema.json_schema()["properties"]
    assert set(props) == {"apiVersion", "kind", "metadata", "spec", "status"}
    assert set(props["kind"]["enum"]) == {"WorkloadMap", "Karta"}
