"""The Argo CD export, proven by Argo CD's Lua engine: for every built-in definition, its
catalog cases and the corpus objects of its kind, the exported health script gives the
health wlmap's status maps to (or a difference listed with the rule that does not
translate), and no script raises on objects with fields removed at random."""

from __future__ import annotations

import copy
import random
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.corpus import CORPUS, missing
from tests.integration.argocd import ARGOCD_LUA_SCRIPT, WHAT, run_health
from tests.integration.testcluster import BuildUnavailable, build_binaries
from wlmap.catalog import builtin_definitions
from wlmap.definitions import Definition
from wlmap.errors import WlmapError
from wlmap.export import HealthScript, expected_health, health_scripts
from wlmap.harness import load_cases
from wlmap.sources import read_manifests
from wlmap.workload import interpret

pytestmark = pytest.mark.integration

CASES = Path(__file__).parents[1] / "catalog" / "cases"
DIFFERENCES = Path(__file__).parent / "argocd_differences.yaml"
FUZZ_RUNS = 5000
FUZZ_SEED = 25
VALID = {"Healthy", "Progressing", "Degraded", "Suspended", "Missing", "Unknown"}


@pytest.fixture(scope="module")
def runner() -> Path:
    try:
        return build_binaries(script=ARGOCD_LUA_SCRIPT, what=WHAT)
    except BuildUnavailable as missing_go:
        pytest.skip(str(missing_go))


@cache
def exported() -> tuple[dict[str, Definition], dict[str, HealthScript]]:
    """Every built-in definition by name, and its kind's exported script."""
    definitions = {d.name: d for d in builtin_definitions()}
    scripts = {}
    for script in health_scripts(definitions.values()):
        for name in script.definitions:
            scripts[name] = script
    return definitions, scripts


def case_objects() -> Iterator[tuple[str, str, dict[str, Any], dict[str, Any] | None]]:
    """(label, definition, object, variables) of every catalog case."""
    for case in load_cases(CASES):
        yield f"case {case.name}", case.definition, case.obj, case.variables


def corpus_objects() -> Iterator[tuple[str, str, dict[str, Any], None]]:
    """(label, definition, object, None) of every corpus object a definition covers."""
    definitions, _ = exported()
    by_kind = {
        (d.root_gvk.api_version, d.root_gvk.kind): d.name
        for d in definitions.values()
        if d.root_gvk is not None
    }
    files = sorted(
        p
        for p in CORPUS.rglob("*")
        if p.suffix in (".yaml", ".yml", ".json") and "crds" not in p.parts
    )
    for path in files:
        try:
            manifests = read_manifests([str(path)])
        except WlmapError:
            continue  # not objects (a values file, a test's script): describe says so
        for index, manifest in enumerate(manifests):
            obj = manifest.obj
            name = by_kind.get((str(obj.get("apiVersion")), str(obj.get("kind"))))
            if name is not None:
                yield f"corpus {path.relative_to(CORPUS)}#{index}", name, obj, None


def wlmap_health(definition: Definition, obj: dict[str, Any], variables: Any) -> tuple[str, str]:
    report = interpret(definition, obj, variables=variables).explanation
    matched = [(m.status, m.index) for m in report.matched]
    return expected_health(definition, report.phases, matched, obj)


def differences() -> dict[str, str]:
    """The expected differences: label -> reason (the rule that does not translate)."""
    listed = yaml.safe_load(DIFFERENCES.read_text(encoding="utf-8"))
    return {item["object"]: item["reason"] for item in listed["differences"]}


def test_every_script_agrees_with_wlmap_on_every_case_and_corpus_object(runner: Path) -> None:
    definitions, scripts = exported()
    objects = list(case_objects())
    if CORPUS.is_dir():
        objects += list(corpus_objects())
    runs = [(label, scripts[name], obj, name, var) for label, name, obj, var in objects]
    answers = run_health(runner, [(script, obj) for _, script, obj, _, _ in runs])
    listed = differences()
    found: dict[str, str] = {}
    unlisted = []
    for (label, script, obj, name, variables), answer in zip(runs, answers, strict=True):
        assert "error" not in answer, f"{label}: {answer['error']}"
        want = wlmap_health(definitions[name], obj, variables)
        got = (answer.get("status"), answer.get("message"))
        if got == want:
            continue
        found[label] = f"Argo CD {got}, wlmap {want}"
        if label not in listed:
            unlisted.append(f"{label}: {found[label]}")
            continue
        reason = listed[label]
        assert any(r.field in reason for r in script.refusals), (
            f"{label}: the listed reason names no rule left out of {script.key}: {reason}"
        )
    assert not unlisted, "differences not listed:\n" + "\n".join(unlisted)
    stale = sorted(set(listed) - set(found))
    if CORPUS.is_dir():
        assert not stale, f"listed differences that no longer differ: {stale}"
    agreed = len(runs) - len(found)
    assert agreed / len(runs) > 0.9, f"only {agreed} of {len(runs)} agree"


def test_corpus_is_present_for_the_corpus_part() -> None:
    if not CORPUS.is_dir():
        pytest.skip(missing())
    assert any(True for _ in corpus_objects()), "no corpus object of a mapped kind"


def _strip(value: Any, rng: random.Random, rate: float) -> Any:
    """``value`` with each field and list item removed with probability ``rate``."""
    if isinstance(value, dict):
        return {k: _strip(v, rng, rate) for k, v in value.items() if rng.random() >= rate}
    if isinstance(value, list):
        return [_strip(v, rng, rate) for v in value if rng.random() >= rate]
    return value


def test_no_script_raises_on_objects_with_fields_removed_at_random(runner: Path) -> None:
    _, scripts = exported()
    objects = list(case_objects())
    if CORPUS.is_dir():
        objects += list(corpus_objects())
    rng = random.Random(FUZZ_SEED)
    runs = []
    for _ in range(FUZZ_RUNS):
        _, name, obj, _ = rng.choice(objects)
        stripped = _strip(copy.deepcopy(obj), rng, rng.choice((0.05, 0.2, 0.5)))
        stripped["apiVersion"] = obj["apiVersion"]  # which definition reads it
        runs.append((scripts[name], stripped))
    answers = run_health(runner, runs)
    raised = [(s.key, a["error"]) for (s, _), a in zip(runs, answers, strict=True) if "error" in a]
    assert not raised, f"{len(raised)} of {FUZZ_RUNS} runs raised, first: {raised[:3]}"
    assert {a["status"] for a in answers} <= VALID
