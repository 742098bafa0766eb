"""How close `wlmap infer` comes to the catalog's hand-written definitions.

For every CRD in the shared corpus and every served version the catalog maps, a draft is
inferred (once from the CRD alone, once with the corpus's sample objects and pods of that
kind) and compared with the catalog's definition of the same kind:

- templates: catalog components with a podTemplateSpecPath/podSpecPath whose field path
  the draft also reads as a template;
- replicas: catalog components with counts whose count fields the draft also reads as a
  count (a constant count matches the same constant on the same template);
- instance ids: catalog instanceIdPaths whose fields the draft reads as instance ids;
- states: catalog states that the draft maps from the same native value (a condition
  type or phase the catalog's matchers of that state name), or from the same suspend
  field;
- tests: the draft replaces the catalog's definition and runs that kind's test cases
  (tests/catalog/cases/<slug>/) unchanged.

Field paths are compared after normalisation against the CRD's schema (`?` dropped; a
map's keys and a list's items both read as `[]`). Fragmented pod specs (no template in
the schema) are not template paths and are counted apart.

Run: ``python benchmarks/infer_catalog.py [--mode crd|samples|both] [--only TEXT]``
"""

from __future__ import annotations

import argparse
import functools
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from _jq_reads import LITERAL as _LITERAL
from _jq_reads import PATH as _PATH
from _jq_reads import norm as _norm

from wlmap.catalog import builtin_registry
from wlmap.definitions import Definition, definition_from_mapping
from wlmap.definitions.document import slug
from wlmap.definitions.gvk import GroupVersionKind
from wlmap.definitions.registry import Registry
from wlmap.errors import WlmapError
from wlmap.harness import load_cases, run_cases
from wlmap.infer import infer
from wlmap.infer._schema import Node, version_schema

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpus"
CASES = ROOT / "tests" / "catalog" / "cases"


@dataclass
class Score:
    found: int = 0
    total: int = 0
    misses: list[str] = field(default_factory=list)

    def add(self, ok: bool, what: str) -> None:
        self.total += 1
        self.found += ok
        if not ok:
            self.misses.append(what)

    def text(self) -> str:
        return f"{self.found}/{self.total}" if self.total else "-"


def _literals(text: str) -> set[str]:
    # "True"/"False" are a condition's status, not the native value a state is mapped from.
    words = {w.lower() for w in _LITERAL.findall(text)} - {"true", "false"}
    if "suspend" in text and "== true" in text:
        words.add("<suspend field>")
    return words


def _status_reads(text: str) -> set[str]:
    """The ``.status`` fields an expression reads, as words of their own: a state computed
    from counts (``.status.readyReplicas``) is mapped from those fields. Conditions lists
    and phase fields are left out: there the literal compared with them is the value."""
    paths = {p.replace("?", "") for p in _PATH.findall(text) if p.startswith(".status.")}
    return {
        f"<{p}>"
        for p in paths
        if "conditions" not in p and not any(_LITERAL.search(rest) for rest in _after(text, p))
    }


def _after(text: str, path: str) -> list[str]:
    """What follows each read of ``path`` up to the next read: ``== "Running"`` after a
    phase field shows the field is compared with a value."""
    return [part[:40] for part in text.replace("?", "").split(path)[1:]]


def _catalog_words(expression: str) -> set[str]:
    """Every string literal of a catalog expression, whether it reads a suspend field,
    and the ``.status`` counts it reads."""
    return _literals(expression) | _status_reads(expression)


def _draft_words(expression: str) -> set[str]:
    """The part of a drafted expression that must hold: before the exclusions (``and
    (any(...) | not)``, ``and ((...) | not)``), whose values the state is not mapped
    from; a test() reads its regex alternatives."""
    text = expression.split(" and (any(", maxsplit=1)[0].split(" and ((", maxsplit=1)[0]
    if "test(" in text:
        alternatives = set(re.findall(r"[a-z]+", text.split("test(")[1]))
        return alternatives | (_literals(text) & {"<suspend field>"}) | _status_reads(text)
    return _literals(text) | _status_reads(text)


def _state_literals(
    definition: Definition, expression_words: Callable[[str], set[str]]
) -> dict[str, set[str]]:
    """The native values each state is mapped from: byPhase, byConditions types, and the
    words ``expression_words`` reads from a byExpression."""
    status = definition.root.status_definition
    out: dict[str, set[str]] = {}
    if status is None:
        return out
    for state, matchers in status.status_mappings.entries():
        words: set[str] = set()
        for m in matchers:
            if m.by_phase:
                words.add(m.by_phase.lower())
            for c in m.by_conditions or ():
                words.add(c.type.lower())
            if m.by_expression:
                words.update(expression_words(m.by_expression.expression))
        out[state.value] = words
    return out


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


def _corpus_objects(kind: str, group: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
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


@dataclass
class Row:
    slug: str
    templates: Score
    replicas: Score
    ids: Score
    states: Score
    cases: tuple[int, int]
    note: str = ""


def compare(catalog: Definition, draft: Definition, schema: Node, registry: Registry) -> Row:
    tpl, rep, ids, states = Score(), Score(), Score(), Score()
    drafted = draft.components()
    t_reads = [(_norm(_template(c), schema), c) for c in drafted]
    for comp in catalog.components():
        path = _template(comp)
        if path is None:
            continue
        want = _norm(path, schema)
        tpl.add(any(want & got for got, _ in t_reads), f"{comp.name} {_short(path)}")
    count_reads = set().union(*(_counts(c, schema) for c in drafted))
    for comp in catalog.components():
        scale = comp.scale_definition
        if scale is None or comp is catalog.root:
            continue
        want = _counts(comp, schema)
        if want:
            rep.add(bool(want & count_reads), f"{comp.name} {_short(scale.replicas_path)}")
        elif scale.replicas_path is not None and _template(comp):
            mine = [c for got, c in t_reads if got & _norm(_template(comp), schema)]
            same = any(
                c.scale_definition and c.scale_definition.replicas_path == scale.replicas_path
                for c in mine
            )
            rep.add(same, f"{comp.name} constant {scale.replicas_path}")
    id_reads = set().union(*(_norm(c.instance_id_path, schema) for c in drafted))
    for comp in catalog.components():
        if comp.instance_id_path:
            want = _norm(comp.instance_id_path, schema)
            ids.add(bool(want & id_reads), f"{comp.name} {_short(comp.instance_id_path)}")
    theirs = _state_literals(catalog, _catalog_words)
    drafted_states = _state_literals(draft, _draft_words)
    # A phase field read without a literal (a regex test) names no value: not a match.
    phases = {
        f"<{d.root.status_definition.phase_definition.path}>"
        for d in (catalog, draft)
        if d.root.status_definition and d.root.status_definition.phase_definition
    }
    for state, words in theirs.items():
        states.add(bool((words - phases) & drafted_states.get(state, set())), state)
    passed = _cases(catalog.name, draft, registry)
    return Row(catalog.name, tpl, rep, ids, states, passed)


def _template(comp: Any) -> str | None:
    spec = comp.spec_definition
    if spec is None:
        return None
    path: str | None = spec.pod_template_spec_path or spec.pod_spec_path
    return path


def _counts(comp: Any, schema: Node) -> set[str]:
    scale = comp.scale_definition
    if scale is None:
        return set()
    return {
        p
        for e in (scale.replicas_path, scale.min_replicas_path, scale.max_replicas_path)
        for p in _norm(e, schema)
    }


@functools.cache
def _all_cases() -> tuple[Any, ...]:
    return tuple(load_cases(CASES))


def _cases(name: str, draft: Definition, registry: Registry) -> tuple[int, int]:
    folder = CASES / name
    if not folder.is_dir():
        return (0, 0)
    swapped = Registry()
    swapped.add(draft, "draft")
    for entry in registry:
        if entry.definition.name != name:
            swapped.add_entry(entry)
    cases = [c for c in _all_cases() if c.definition == name]
    results = run_cases(cases, swapped)
    return (sum(r.passed for r in results), len(results))


def rows(mode: str, only: str = "") -> Iterable[Row]:
    registry = builtin_registry()
    by_name = {e.definition.name: e.definition for e in registry}
    for path in sorted((CORPUS / "crds").glob("*.yaml")):
        crd = next(d for d in yaml.safe_load_all(path.read_text(encoding="utf-8")) if d)
        spec = crd["spec"]
        group, kind = spec["group"], spec["names"]["kind"]
        samples, pods = _corpus_objects(kind, group) if mode == "samples" else ([], [])
        for version in (v["name"] for v in spec["versions"] if v.get("served", True)):
            name = slug(GroupVersionKind(group=group, version=version, kind=kind))
            catalog = by_name.get(name)
            if catalog is None or only not in name:
                continue
            _, schema = version_schema(crd, version)
            try:
                drafted = infer(crd, version, samples, pods)
                draft = definition_from_mapping(drafted.definition, "draft")
            except WlmapError as exc:
                empty = Definition.model_validate(
                    {"spec": {"structureDefinition": {"rootComponent": {"name": kind.lower()}}}}
                )
                row = compare(catalog, empty, schema, Registry())
                row.cases = (0, _cases(name, empty, registry)[1])
                row.note = str(exc).split(":")[1].strip()[:40]
                yield row
                continue
            yield compare(catalog, draft, schema, registry)


def report(mode: str, only: str = "") -> None:
    print(f"mode: {'CRD + corpus samples and pods' if mode == 'samples' else 'CRD only'}")
    head = f"{'definition':52} {'templ':>6} {'repl':>6} {'ids':>6} {'states':>7} {'tests':>7}"
    print(head)
    totals = [Score(), Score(), Score(), Score()]
    kinds_passing = kinds_with_cases = cases_passed = cases_run = 0
    misses: list[str] = []
    for row in rows(mode, only):
        passed, total = row.cases
        kinds_with_cases += total > 0
        kinds_passing += total > 0 and passed == total
        cases_passed, cases_run = cases_passed + passed, cases_run + total
        print(
            f"{row.slug:52} {row.templates.text():>6} {row.replicas.text():>6} {row.ids.text():>6}"
            f" {row.states.text():>7} {f'{passed}/{total}':>7} {row.note}"
        )
        for total_score, score in zip(
            totals, (row.templates, row.replicas, row.ids, row.states), strict=True
        ):
            total_score.found += score.found
            total_score.total += score.total
        for label, score in (
            ("template", row.templates),
            ("replicas", row.replicas),
            ("id", row.ids),
            ("state", row.states),
        ):
            misses += [f"  {row.slug}: {label} {m}" for m in score.misses]
    names = ("pod template paths", "replica paths", "instance-id paths", "states mapped the same")
    for name, score in zip(names, totals, strict=True):
        pct = 100 * score.found / score.total if score.total else 0.0
        print(f"TOTAL {name:28} {score.found:3}/{score.total:<3} {pct:5.1f} %")
    pct = 100 * kinds_passing / kinds_with_cases if kinds_with_cases else 0.0
    print(
        f"TOTAL {'kinds passing all test cases':28} {kinds_passing:3}/{kinds_with_cases:<3} {pct:5.1f} %"
    )
    pct = 100 * cases_passed / cases_run if cases_run else 0.0
    print(f"TOTAL {'test cases passing':28} {cases_passed:3}/{cases_run:<3} {pct:5.1f} %")
    print("misses:")
    print("\n".join(misses))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mode", choices=("crd", "samples", "both"), default="both")
    parser.add_argument("--only", default="", help="only definitions whose name holds this")
    args = parser.parse_args()
    for mode in ("crd", "samples") if args.mode == "both" else (args.mode,):
        report(mode, args.only)
        print()


def _short(text: str | None) -> str:
    flat = " ".join((text or "").split())
    return flat if len(flat) <= 70 else flat[:67] + "..."


if __name__ == "__main__":
    main()
