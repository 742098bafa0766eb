"""The corpus objects and catalog test cases the infer benchmark reads, each loaded once."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import yaml

from wlmap.definitions import Definition
from wlmap.definitions.registry import Registry
from wlmap.harness import load_cases, run_cases

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpus"
CASES = ROOT / "tests" / "catalog" / "cases"


@functools.cache
def _corpus_documents() -> tuple[Any, ...]:
    """Every document of the corpus outside its CRDs, read once (C loader where built)."""
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    out: list[Any] = []
    for path in sorted(CORPUS.rglob("*.yaml")):
        if "crds" in path.parts:
            continue
        try:
            out += yaml.load_all(path.read_text(encoding="utf-8"), Loader=loader)
        except yaml.YAMLError:
            continue
    return tuple(out)


def corpus_objects(kind: str, group: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    samples, pods = [], []
    for doc in _corpus_documents():
        items = doc.get("items") if isinstance(doc, dict) and doc.get("kind") == "List" else [doc]
        for obj in items or ():
            if not isinstance(obj, dict):
                continue
            if obj.get("kind") == kind and str(obj.get("apiVersion", "")).split("/")[0] == group:
                samples.append(obj)
            elif obj.get("kind") == "Pod":
                pods.append(obj)
    return samples, pods


@functools.cache
def _all_cases() -> tuple[Any, ...]:
    return tuple(load_cases(CASES))


def case_results(name: str, draft: Definition, registry: Registry) -> tuple[int, int, list[str]]:
    """Cases passed, cases run, and each failed case with its first mismatch."""
    folder = CASES / name
    if not folder.is_dir():
        return (0, 0, [])
    swapped = Registry()
    swapped.add(draft, "draft")
    for entry in registry:
        if entry.definition.name != name:
            swapped.add_entry(entry)
    cases = [c for c in _all_cases() if c.definition == name]
    results = run_cases(cases, swapped)
    failed = [
        f"{r.case.name}: {r.mismatches[0]}"
        + (f" (+{len(r.mismatches) - 1} more)" if len(r.mismatches) > 1 else "")
        for r in results
        if not r.passed
    ]
    return (sum(r.passed for r in results), len(results), failed)
