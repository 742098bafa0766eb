"""The built-in catalog's cases: every definition proven on real objects in every state."""

from __future__ import annotations

from collections import defaultdict
from functools import cache
from pathlib import Path

import pytest

from wlmap.catalog import builtin_definitions, builtin_registry
from wlmap.harness import Case, load_cases, run_case

CASES = Path(__file__).parent / "cases"
MINIMUM_CASES = 3
# Kinds the shared corpus holds no manifest of: their real-object case is an upstream
# manifest read at a pinned commit (its `source:` starts with `upstream/`).
NOT_IN_CORPUS = {
    "slinky-slurm-net-nodeset-v1beta1": "the corpus has no NodeSet manifest",
    "flink-apache-org-flinkdeployment-v1beta1": "the corpus has no Flink manifest",
    "apps-nvidia-com-nimpipeline-v1alpha1": "the corpus has no NIMPipeline manifest",
}


@cache
def all_cases() -> list[Case]:
    """Every case, read once, when the first test needs them (not at collection)."""
    return load_cases(CASES)


def case_names() -> list[str]:
    """The name of each case file, as ``load_cases`` names it, without reading the files."""
    files = (p for p in CASES.rglob("*") if p.suffix in (".yaml", ".yml") and p.is_file())
    return sorted(str(p.relative_to(CASES).with_suffix("")) for p in files)


@pytest.mark.parametrize("name", case_names())
def test_case(name: str) -> None:
    [case] = [c for c in all_cases() if c.name == name]
    result = run_case(case, builtin_registry())
    assert result.passed, f"{case.path}:\n" + "\n".join(f"  {m}" for m in result.mismatches)


def test_every_definition_has_cases_and_one_from_the_corpus() -> None:
    by_definition: dict[str, list[Case]] = defaultdict(list)
    for case in all_cases():
        by_definition[case.definition].append(case)
    known = {d.name for d in builtin_definitions()}
    assert set(by_definition) <= known, (
        f"cases for unknown definitions: {set(by_definition) - known}"
    )
    lacking = {
        name: len(by_definition[name])
        for name in sorted(known)
        if len(by_definition[name]) < MINIMUM_CASES
        or not any(c.source.startswith(_real_prefix(name)) for c in by_definition[name])
    }
    assert not lacking, (
        f"definitions with fewer than {MINIMUM_CASES} cases or none from the corpus: {lacking}"
    )


def _real_prefix(definition: str) -> str:
    return "upstream/" if definition in NOT_IN_CORPUS else "corpus/"


def test_no_case_expects_two_lifecycle_states_at_once() -> None:
    # Overlapping matchers show up as two primary states; only Degraded may accompany one.
    primary = {
        "Initializing",
        "Running",
        "Completed",
        "Failed",
        "Suspended",
        "Suspending",
        "Resuming",
    }
    for case in all_cases():
        assert "phases" in case.expect, f"{case.name}: every case states the exact phases"
        states = [p for p in case.expect["phases"] if p in primary]
        assert len(states) <= 1, f"{case.name}: {states}"


def test_every_mapped_status_has_a_case() -> None:
    seen: dict[str, set[str]] = defaultdict(set)
    for case in all_cases():
        seen[case.definition].update(case.expect.get("phases", ()))
    lacking = {}
    for definition in builtin_definitions():
        status = definition.root.status_definition
        mapped = {s.value for s, _ in status.status_mappings.entries()} if status else set()
        if mapped - seen[definition.name]:
            lacking[definition.name] = sorted(mapped - seen[definition.name])
    assert not lacking, f"mapped statuses no case reaches: {lacking}"
