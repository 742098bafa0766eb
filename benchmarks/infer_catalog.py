"""How close `wlmap infer` comes to the catalog's hand-written definitions.

For every CRD in the shared corpus and every served version the catalog maps, a draft is
inferred (once from the CRD alone, once with the corpus's sample objects and pods of that
kind) and compared with the catalog's definition of the same kind:

- templates: catalog components with a podTemplateSpecPath/podSpecPath whose field path
  the draft also reads as a template;
- replicas: catalog components with counts whose count fields the draft also reads as a
  count (a constant count, or one that only tests its own template's presence, matches
  the same constant on the same template);
- instance ids: catalog instanceIdPaths whose fields the draft reads as instance ids;
- states: catalog states that the draft maps from the same native value (a condition
  type or phase the catalog's matchers of that state name), or from the same suspend
  field;
- tests: the draft replaces the catalog's definition and runs that kind's test cases
  (tests/catalog/cases/<slug>/) unchanged.

Field paths are compared after normalisation against the CRD's schema (`?` dropped; a
map's keys and a list's items both read as `[]`). Fragmented pod specs (no template in
the schema) are not template paths and are counted apart. Where the jq spellings
differ (a fixed list of fields walked as ``$c | ("a", "b") | select($c[.] != null)``),
ids and counts that give the same values on every corpus sample of the kind count as the
same path (_infer_values; the totals say how many matched that way), in both modes.
Catalog values no field of the kind holds are listed as out of reach with the reason
(_infer_reach) and a second total leaves them out.

Run: ``python benchmarks/infer_catalog.py [--mode crd|samples|both] [--only TEXT] [--cases]``
(``--cases``: each failing test case with its first mismatch, among the misses).
"""

from __future__ import annotations

import argparse
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import yaml
from _infer_corpus import CORPUS, case_results, corpus_objects
from _infer_counts import score_replicas, short, template_of
from _infer_reach import OUT_OF_REACH, out_of_reach
from _infer_states import catalog_words, draft_words, state_literals
from _infer_values import Samples, same_values
from _jq_reads import norm as _norm

from wlmap.catalog import builtin_registry
from wlmap.definitions import Definition, definition_from_mapping
from wlmap.definitions.document import slug
from wlmap.definitions.gvk import GroupVersionKind
from wlmap.definitions.registry import Registry
from wlmap.errors import WlmapError
from wlmap.infer import candidate_kinds, infer
from wlmap.infer._schema import Node, version_schema


@dataclass
class Score:
    """Catalog paths found; those out of reach (see _infer_reach) also apart."""

    found: int = 0
    total: int = 0
    reach_found: int = 0
    reach_total: int = 0
    by_value: int = 0
    misses: list[str] = field(default_factory=list)

    def add(self, ok: bool, what: str, unreachable: str | None = None, value: bool = False) -> None:
        self.total += 1
        self.found += ok
        self.by_value += ok and value
        if unreachable is None:
            self.reach_total += 1
            self.reach_found += ok
        if not ok:
            self.misses.append(what + (" [out of reach]" if unreachable else ""))

    def text(self) -> str:
        return f"{self.found}/{self.total}" if self.total else "-"


@dataclass
class Row:
    slug: str
    templates: Score
    replicas: Score
    ids: Score
    states: Score
    cases: tuple[int, int]
    note: str = ""
    failed_cases: list[str] = field(default_factory=list)


def compare(
    catalog: Definition,
    draft: Definition,
    schema: Node,
    registry: Registry,
    samples: Samples = (),
) -> Row:
    """Score ``draft`` against ``catalog``; ``samples`` (the corpus's objects of the kind)
    settle paths whose jq spellings differ (see _infer_values)."""
    tpl, rep, ids, states = Score(), Score(), Score(), Score()
    name = catalog.name
    drafted = draft.components()
    t_reads = [(_norm(template_of(c), schema), c) for c in drafted]
    for comp in catalog.components():
        path = template_of(comp)
        if path is None:
            continue
        want = _norm(path, schema)
        tpl.add(
            any(want & got for got, _ in t_reads),
            f"{comp.name} {short(path)}",
            out_of_reach(name, "template", comp.name),
        )
    score_replicas(catalog, drafted, t_reads, schema, samples, rep)
    id_reads = set().union(*(_norm(c.instance_id_path, schema) for c in drafted))
    for comp in catalog.components():
        if comp.instance_id_path:
            by_path = bool(_norm(comp.instance_id_path, schema) & id_reads)
            by_value = not by_path and any(
                same_values(comp.instance_id_path, c.instance_id_path, samples) for c in drafted
            )
            ids.add(
                by_path or by_value,
                f"{comp.name} {short(comp.instance_id_path)}",
                out_of_reach(name, "id", comp.name),
                by_value,
            )
    theirs = state_literals(catalog, catalog_words)
    drafted_states = state_literals(draft, draft_words)
    # A phase field read without a literal (a regex test) names no value: not a match.
    phases = {
        f"<{d.root.status_definition.phase_definition.path}>"
        for d in (catalog, draft)
        if d.root.status_definition and d.root.status_definition.phase_definition
    }
    for state, words in theirs.items():
        states.add(bool((words - phases) & drafted_states.get(state, set())), state)
    passed, total, failed = case_results(name, draft, registry)
    return Row(name, tpl, rep, ids, states, (passed, total), failed_cases=failed)


def _crds() -> list[dict[str, Any]]:
    return [
        next(d for d in yaml.safe_load_all(path.read_text(encoding="utf-8")) if d)
        for path in sorted((CORPUS / "crds").glob("*.yaml"))
    ]


def _referenced_samples(
    crd: dict[str, Any], version: str, crds: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """The corpus's objects of the kinds the CRD names by reference (a runtime)."""
    out: list[dict[str, Any]] = []
    for kind, group in candidate_kinds(crd, version):
        for other in crds:
            theirs = other["spec"]["group"]
            if other["spec"]["names"]["kind"] == kind and group in (None, theirs):
                out += corpus_objects(kind, theirs)[0]
    return out


def rows(mode: str, only: str = "") -> Iterable[Row]:
    registry = builtin_registry()
    by_name = {e.definition.name: e.definition for e in registry}
    crds = _crds()  # every kind's CRD is given: a kind that names a runtime reads it
    for crd in crds:
        spec = crd["spec"]
        group, kind = spec["group"], spec["names"]["kind"]
        corpus = corpus_objects(kind, group)
        # The corpus samples settle spellings in both modes; only "samples" infers from them.
        samples, pods = corpus if mode == "samples" else ([], [])
        for version in (v["name"] for v in spec["versions"] if v.get("served", True)):
            name = slug(GroupVersionKind(group=group, version=version, kind=kind))
            catalog = by_name.get(name)
            if catalog is None or only not in name:
                continue
            _, schema = version_schema(crd, version)
            try:
                referenced = _referenced_samples(crd, version, crds) if mode == "samples" else []
                drafted = infer(crd, version, [*samples, *referenced], pods, known=crds)
                draft = definition_from_mapping(drafted.definition, "draft")
            except WlmapError as exc:
                empty = Definition.model_validate(
                    {"spec": {"structureDefinition": {"rootComponent": {"name": kind.lower()}}}}
                )
                row = compare(catalog, empty, schema, Registry(), corpus[0])
                _, total, failed = case_results(name, empty, registry)
                row.cases, row.failed_cases = (0, total), failed
                row.note = str(exc).split(":")[1].strip()[:40]
                yield row
                continue
            yield compare(catalog, draft, schema, registry, corpus[0])


def report(mode: str, only: str = "", cases: bool = False) -> None:
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
            for attr in ("found", "total", "reach_found", "reach_total", "by_value"):
                setattr(total_score, attr, getattr(total_score, attr) + getattr(score, attr))
        for label, score in (
            ("template", row.templates),
            ("replicas", row.replicas),
            ("id", row.ids),
            ("state", row.states),
        ):
            misses += [f"  {row.slug}: {label} {m}" for m in score.misses]
        if cases:
            misses += [f"  {row.slug}: case {c}"[:240] for c in row.failed_cases]
    names = ("pod template paths", "replica paths", "instance-id paths", "states mapped the same")
    for name, score in zip(names, totals, strict=True):
        pct = 100 * score.found / score.total if score.total else 0.0
        reach = 100 * score.reach_found / score.reach_total if score.reach_total else 0.0
        aside = (
            f"   reachable {score.reach_found}/{score.reach_total} {reach:5.1f} %"
            if score.reach_total != score.total
            else ""
        )
        aside += f"   ({score.by_value} by values on samples)" if score.by_value else ""
        print(f"TOTAL {name:28} {score.found:3}/{score.total:<3} {pct:5.1f} %{aside}")
    pct = 100 * kinds_passing / kinds_with_cases if kinds_with_cases else 0.0
    print(
        f"TOTAL {'kinds passing all test cases':28} {kinds_passing:3}/{kinds_with_cases:<3} {pct:5.1f} %"
    )
    pct = 100 * cases_passed / cases_run if cases_run else 0.0
    print(f"TOTAL {'test cases passing':28} {cases_passed:3}/{cases_run:<3} {pct:5.1f} %")
    print("misses:")
    print("\n".join(misses))
    print("out of reach:")
    for (prefix, measure, component), reason in OUT_OF_REACH.items():
        print(f"  {prefix}* {measure} {component}: {reason}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mode", choices=("crd", "samples", "both"), default="both")
    parser.add_argument("--only", default="", help="only definitions whose name holds this")
    parser.add_argument(
        "--cases", action="store_true", help="also list each failing test case's first mismatch"
    )
    args = parser.parse_args()
    for mode in ("crd", "samples") if args.mode == "both" else (args.mode,):
        report(mode, args.only, args.cases)
        print()


if __name__ == "__main__":
    main()
