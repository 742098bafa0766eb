"""Access to the real upstream manifests in ``../shared/corpus`` beside the checkout.

Nothing here parses the corpus at import or collection time: collection only lists file
names, and a test parses what it needs when it runs (the CRDs, megabytes each, once per
run). Without the corpus, every test that needs it skips with a reason naming the missing
file or folder, so a fresh clone runs the rest of the suite.
"""

from __future__ import annotations

import os
from functools import cache
from pathlib import Path
from typing import Any

import pytest
import yaml

# WLMAP_TEST_CORPUS names another folder (the suite's own test of a checkout without the
# corpus points it at one that does not exist).
CORPUS = Path(
    os.environ.get("WLMAP_TEST_CORPUS")
    or Path(__file__).resolve().parents[1].parent / "shared" / "corpus"
)
SHOWN = "../shared/corpus" if "WLMAP_TEST_CORPUS" not in os.environ else str(CORPUS)
WHERE = "../shared/corpus beside the checkout"
# libyaml's loader when PyYAML has it: the same documents, parsed many times faster.
LOADER: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def missing(relative: str = "") -> str:
    """The skip reason for a corpus file or folder that is not there."""
    name = f"{SHOWN}/{relative}".rstrip("/")
    return f"{name} is not available (the corpus tests need {WHERE})"


def corpus_path(relative: str) -> Path:
    """The path of a corpus file; skips the test when the corpus is not beside the checkout."""
    path = CORPUS / relative
    if not path.exists():
        pytest.skip(missing(relative))
    return path


def corpus_docs(relative: str) -> list[dict[str, Any]]:
    """Every non-empty YAML document of a corpus file (a fresh copy on every call)."""
    text = corpus_path(relative).read_text(encoding="utf-8")
    return [d for d in yaml.load_all(text, Loader=LOADER) if isinstance(d, dict)]


def corpus_object(relative: str, kind: str) -> dict[str, Any]:
    """The first object of ``kind`` in a corpus file."""
    for doc in corpus_docs(relative):
        if doc.get("kind") == kind:
            return doc
    raise AssertionError(f"no {kind} in {relative}")


def corpus_params(files: list[Path], folder: str = "") -> list[Any]:
    """Parameters for ``pytest.mark.parametrize`` over corpus files, identified by their
    path inside the corpus; one skipped parameter naming ``folder`` when there are none
    because the corpus is absent (an empty list would skip without saying why)."""
    if not (CORPUS / folder).is_dir():
        return [pytest.param(None, marks=pytest.mark.skip(reason=missing(folder)))]
    return [pytest.param(f, id=str(f.relative_to(CORPUS))) for f in files]


@cache
def corpus_crd_files() -> dict[tuple[str, str], Path]:
    """The corpus CRD file of each (group, kind), read from the head of each file only;
    empty without the corpus."""
    folder = CORPUS / "crds"
    files = sorted(folder.glob("*.yaml")) if folder.is_dir() else []
    return {identity: path for path in files if (identity := _crd_identity(path))}


@cache
def corpus_crd(group: str, kind: str) -> dict[str, Any]:
    """The corpus CRD of ``group``/``kind``, parsed once per run and shared by the tests
    (which only read it); skips when absent."""
    path = corpus_crd_files().get((group, kind))
    if path is None:
        pytest.skip(missing("crds") if not CORPUS.is_dir() else f"no CRD of {kind}.{group}")
    for doc in yaml.load_all(path.read_text(encoding="utf-8"), Loader=LOADER):
        if isinstance(doc, dict) and doc.get("kind") == "CustomResourceDefinition":
            return doc
    raise AssertionError(f"{path.name}: no CustomResourceDefinition")


def _crd_identity(path: Path) -> tuple[str, str] | None:
    """``(spec.group, spec.names.kind)`` of a file's CRD (one per file, as generators write
    them), from YAML events: both come before the schemas, whose megabytes are not read."""
    keys: list[str | None] = []  # per open collection: the key being read (None in a list)
    mapping: list[bool] = []  # per open collection: whether it is a mapping
    awaiting_key: list[bool] = []  # per open collection: its next scalar is a mapping key
    found: dict[tuple[str | None, ...], str] = {}
    with path.open("rb") as stream:
        for event in yaml.parse(stream, Loader=LOADER):
            if isinstance(event, yaml.CollectionStartEvent):
                is_mapping = isinstance(event, yaml.MappingStartEvent)
                keys.append(None)
                mapping.append(is_mapping)
                awaiting_key.append(is_mapping)
                continue
            if isinstance(event, yaml.CollectionEndEvent):
                keys.pop()
                mapping.pop()
                awaiting_key.pop()
            elif isinstance(event, yaml.ScalarEvent) and awaiting_key and awaiting_key[-1]:
                keys[-1] = event.value
                awaiting_key[-1] = False
                continue
            elif isinstance(event, yaml.ScalarEvent) and tuple(keys) in _IDENTITY:
                found[tuple(keys)] = event.value
                if len(found) == len(_IDENTITY):
                    return found[("spec", "group")], found[("spec", "names", "kind")]
            elif not isinstance(event, yaml.ScalarEvent | yaml.AliasEvent):
                continue  # stream and document boundaries
            if mapping:  # a value ended: its mapping's next scalar is a key again
                awaiting_key[-1] = mapping[-1]
    return None


_IDENTITY = {("spec", "group"), ("spec", "names", "kind")}
