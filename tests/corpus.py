"""Access to the real upstream manifests in ``../shared/corpus`` beside the checkout."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "corpus"


def corpus_path(relative: str) -> Path:
    """The path of a corpus file; skips the test when the corpus is not beside the checkout."""
    path = CORPUS / relative
    if not path.exists():
        pytest.skip(f"corpus file {relative} is not available")
    return path


def corpus_docs(relative: str) -> list[dict[str, Any]]:
    """Every non-empty YAML document of a corpus file."""
    text = corpus_path(relative).read_text(encoding="utf-8")
    return [d for d in yaml.safe_load_all(text) if isinstance(d, dict)]


def corpus_object(relative: str, kind: str) -> dict[str, Any]:
    """The first object of ``kind`` in a corpus file."""
    for doc in corpus_docs(relative):
        if doc.get("kind") == kind:
            return doc
    raise AssertionError(f"no {kind} in {relative}")
