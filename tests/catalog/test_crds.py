"""Every built-in definition whose CRD is in the corpus reads only fields the CRD has."""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from tests.corpus import CORPUS
from wlmap.catalog import builtin_definitions
from wlmap.definitions import Definition
from wlmap.definitions.schema_check import crd_problems, crd_schema


def corpus_crds() -> dict[tuple[str, str], dict[str, Any]]:
    found = {}
    for path in sorted((CORPUS / "crds").glob("*.yaml")) if CORPUS.is_dir() else []:
        for doc in yaml.safe_load_all(path.read_text(encoding="utf-8")):
            if isinstance(doc, dict) and doc.get("kind") == "CustomResourceDefinition":
                found[(doc["spec"]["group"], doc["spec"]["names"]["kind"])] = doc
    return found


CRDS = corpus_crds()
CHECKED = [
    d
    for d in builtin_definitions()
    if d.root_gvk is not None
    and (d.root_gvk.group, d.root_gvk.kind) in CRDS
    and crd_schema(CRDS[(d.root_gvk.group, d.root_gvk.kind)], d.root_gvk.version) is not None
]


def test_most_definitions_with_a_corpus_crd_are_checked() -> None:
    # every CRD in the corpus serves the version its definition maps, except MPIJob v1
    # (the corpus holds the v2 operator's CRD)
    assert len(CHECKED) >= 20


@pytest.mark.parametrize("definition", CHECKED, ids=lambda d: d.name)
def test_paths_exist_in_the_crd(definition: Definition) -> None:
    assert definition.root_gvk is not None
    crd = CRDS[(definition.root_gvk.group, definition.root_gvk.kind)]
    assert [str(p) for p in crd_problems(definition, crd)] == []
