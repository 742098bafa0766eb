"""Fixtures for the jq engine tests: the shared corpus of real manifests, and libjq itself."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import jq
import pytest
import yaml

from tests.corpus import CORPUS, LOADER, missing


@pytest.fixture(scope="session")
def corpus_dir() -> Path:
    """The shared corpus of upstream manifests; tests using it skip when it is absent."""
    if not CORPUS.is_dir():
        pytest.skip(missing())
    return CORPUS


def load_objects(path: Path) -> list[dict[str, Any]]:
    """Every Kubernetes object (a mapping with a ``kind``) in a YAML file."""
    with path.open(encoding="utf-8") as handle:
        docs = list(yaml.load_all(handle, Loader=LOADER))
    return [doc for doc in docs if isinstance(doc, dict) and "kind" in doc]


def libjq_all(text: str, value: Any, variables: Mapping[str, Any] | None = None) -> list[Any]:
    """Evaluate with the real libjq; raises ValueError like the binding does.

    Variables are bound with ``as`` (the binding's ``args`` loses them when a ``reduce``
    initialiser backtracks).
    """
    binds = "".join(f"{json.dumps(v)} as ${k} | " for k, v in (variables or {}).items())
    wrapped = f". as $__in | {binds}$__in | ({text}\n)" if binds else text
    outputs: list[Any] = jq.compile(wrapped).input_value(value).all()
    return outputs
