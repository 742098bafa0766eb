"""The catalog read per kind: each file's header names its kind, and a registry of the
catalog parses a file only when its definition is used."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.corpus import corpus_path
from wlmap.app.types import resolve_type
from wlmap.catalog import builtin_definitions, builtin_registry
from wlmap.catalog._index import index, root_gvk


def test_every_header_names_the_kind_its_file_defines() -> None:
    indexed = index()
    definitions = builtin_definitions()
    assert len(indexed) == len(definitions)
    for item, definition in zip(indexed, definitions, strict=True):
        gvk = definition.root_gvk
        assert gvk is not None
        assert item.gvk == (gvk.group, gvk.version, gvk.kind), item.name


def test_a_header_laid_out_otherwise_means_parse_the_file() -> None:
    flow = "spec:\n  structureDefinition:\n    rootComponent:\n      name: x\n"
    assert root_gvk(flow + '      kind: {group: "", version: v1, kind: Pod}\n') == ("", "v1", "Pod")
    block = (
        flow + "      kind:\n        group: apps\n        version: v1\n        kind: Deployment\n"
    )
    assert root_gvk(block) is None
    child_only = flow + "    childComponents:\n      - kind: {group: a, version: v1, kind: B}\n"
    assert root_gvk(child_only) is None
    two_documents = flow + "      kind: {group: a, version: v1, kind: B}\n---\nkind: WorkloadMap\n"
    assert root_gvk(two_documents) is None


def test_a_registry_resolves_kinds_and_versions_without_reading_definitions() -> None:
    registry = builtin_registry()
    assert resolve_type(registry, "jobsets").kind == "JobSet"
    assert not any(entry.loaded for entry in registry)
    entry = registry.find("ray.io/v1alpha1", "RayCluster")  # a version the catalog lacks
    assert entry is not None
    assert entry.definition.name == "ray-io-raycluster-v1"
    assert [e for e in registry if e.loaded] == [entry]


def test_describe_of_one_jobset_parses_one_catalog_file() -> None:
    jobset = corpus_path("jobset/tpu-multislice-v6e-jax.yaml")
    probe = (
        "import contextlib, io, json\n"
        "from wlmap.cli.main import main\n"
        "from wlmap.catalog import parsed_file\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    code = main(['describe', '-f', {str(jobset)!r}])\n"
        "print(json.dumps([code, parsed_file.cache_info().currsize]))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    )
    assert json.loads(result.stdout) == [0, 1]
