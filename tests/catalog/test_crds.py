"""Every built-in definition whose CRD is in the corpus reads only fields the CRD has."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from tests.corpus import corpus_crd, corpus_crd_files, missing
from wlmap.catalog import builtin_definitions
from wlmap.definitions import Definition
from wlmap.definitions.schema_check import crd_problems, crd_schema


def definitions_with_a_corpus_crd() -> list[Any]:
    """The built-in definitions whose root kind has a CRD in the corpus (found without
    parsing the CRDs: they are parsed when a test needs them)."""
    crds = corpus_crd_files()
    if not crds:
        return [pytest.param(None, marks=pytest.mark.skip(reason=missing("crds")))]
    return [
        pytest.param(d, id=d.name)
        for d in builtin_definitions()
        if d.root_gvk is not None and (d.root_gvk.group, d.root_gvk.kind) in crds
    ]


WITH_CRD = definitions_with_a_corpus_crd()


def served_schema(definition: Definition) -> Mapping[str, Any] | None:
    """The schema of the version the definition maps, from its corpus CRD."""
    gvk = definition.root_gvk
    assert gvk is not None
    return crd_schema(corpus_crd(gvk.group, gvk.kind), gvk.version)


def test_most_definitions_with_a_corpus_crd_are_checked() -> None:
    # every CRD in the corpus serves the version its definition maps, except MPIJob v1
    # (the corpus holds the v2 operator's CRD)
    definitions = [p.values[0] for p in WITH_CRD]
    if definitions == [None]:
        pytest.skip(missing("crds"))
    checked = [d for d in definitions if served_schema(d) is not None]
    assert len(checked) >= 20


@pytest.mark.parametrize("definition", WITH_CRD)
def test_paths_exist_in_the_crd(definition: Definition) -> None:
    gvk = definition.root_gvk
    assert gvk is not None
    crd = corpus_crd(gvk.group, gvk.kind)
    if crd_schema(crd, gvk.version) is None:
        pytest.skip(f"the corpus CRD of {gvk.kind}.{gvk.group} does not serve {gvk.version}")
    assert [str(p) for p in crd_problems(definition, crd)] == []
