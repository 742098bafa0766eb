"""The ordinary path gives the same view as the general path, on every real object.

``interpret`` builds the view of an object met alone through generated code when nothing
in it is unusual (``_ordinary_view``) and through the general path otherwise. Whatever a
caller reads from the view must not depend on which path built it: this compares both
on every corpus manifest and every catalog case object (those carry the status of every
state), field by field as the JSON contract shows them, with gangs, warnings and the
suspend state.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from tests.corpus import CORPUS, corpus_docs, corpus_params, corpus_path
from wlmap import jq
from wlmap.catalog import builtin_registry
from wlmap.errors import NoDefinitionError
from wlmap.harness import load_cases
from wlmap.workload import WorkloadView, interpret, prepare
from wlmap.workload._ordinary_view import ordinary_view
from wlmap.workload.compiled import compile_definition
from wlmap.workload.interpret import general_view

CASES = Path(__file__).parents[2] / "catalog" / "cases"
FOLDERS = sorted(p for p in CORPUS.iterdir() if p.is_dir()) if CORPUS.is_dir() else []


def shown(view: WorkloadView) -> str:
    """Everything a caller can read from a view, as one comparable text."""
    return json.dumps(
        {
            "view": view.to_dict(),
            "explanation": view.explanation.to_dict(),
            "gangs": [g.to_dict() for g in view.gang_groups],
            "gangIssues": list(view.gang_issues),
            "warnings": list(view.warnings),
            "suspend": view.suspend.to_dict(),
            "components": [repr(c) for c in view.components],
            "totals": repr(view.totals),
        },
        sort_keys=True,
        default=str,
    )


def mapped(obj: dict[str, Any]) -> bool:
    """Whether the catalog maps the object."""
    try:
        builtin_registry().for_object(obj)
    except NoDefinitionError:
        return False
    return True


def compare(obj: dict[str, Any], strict: bool = False) -> bool:
    """Whether the ordinary path took ``obj``; asserts it agrees with the general path."""
    definition = builtin_registry().for_object(obj)
    compiled = prepare(definition)
    ordinary = ordinary_view(compiled, copy.deepcopy(obj), strict)
    general = general_view(compiled, copy.deepcopy(obj), None, None, None, None, strict)
    if ordinary is None:
        return False
    assert shown(ordinary) == shown(general), obj.get("metadata", {}).get("name")
    assert ordinary == general or ordinary.components == general.components
    return True


@pytest.mark.parametrize("folder", corpus_params(FOLDERS))
def test_both_paths_agree_on_the_corpus(folder: Path) -> None:
    for path in sorted(folder.rglob("*.yaml")):
        for obj in corpus_docs(str(path.relative_to(CORPUS))):
            if mapped(obj):
                compare(obj)


@pytest.mark.parametrize(
    ("folder", "kind"),
    [("jobset", "JobSet"), ("kubeflow-pytorchjob", "PyTorchJob"), ("ray-raycluster", "RayCluster")],
)
def test_real_training_jobs_take_the_ordinary_path(folder: str, kind: str) -> None:
    files = sorted(corpus_path(folder).glob("*.yaml"))
    objs = [o for f in files for o in corpus_docs(f"{folder}/{f.name}") if o.get("kind") == kind]
    assert objs
    assert all(compare(o) for o in objs)


def test_both_paths_agree_on_every_catalog_case() -> None:
    cases = load_cases(CASES)
    taken = sum(compare(case.obj) + compare(case.obj, strict=True) for case in cases)
    assert taken >= len(cases)  # (two paths per case: each ordinary one is counted)


def test_an_unusual_object_takes_the_general_path_and_is_reported() -> None:
    [obj] = [
        d for d in corpus_docs("jobset/tpu-multislice-v6e-jax.yaml") if d.get("kind") == "JobSet"
    ]
    obj["spec"]["replicatedJobs"][0]["replicas"] = "2"  # a numeric string: converted
    definition = builtin_registry().for_object(obj)
    assert ordinary_view(prepare(definition), obj, False) is None
    view = interpret(definition, obj)
    assert view.components[1].replicas == 2
    obj["spec"]["replicatedJobs"][0]["replicas"] = -1  # impossible: a located error
    assert ordinary_view(prepare(definition), obj, False) is None
    assert any("replicasPath gave -1" in w for w in interpret(definition, obj).warnings)


def test_an_untrusted_definition_keeps_the_general_path() -> None:
    # a hostile expression that fails is evaluated (and bounded) once, not once per path
    [obj] = [
        d for d in corpus_docs("jobset/tpu-multislice-v6e-jax.yaml") if d.get("kind") == "JobSet"
    ]
    definition = builtin_registry().for_object(obj)
    untrusted = compile_definition(definition, jq.untrusted_engine())
    assert ordinary_view(untrusted, obj, False) is None
    assert ordinary_view(prepare(definition), obj, False) is not None
    assert interpret(untrusted, obj).to_dict() == interpret(definition, obj).to_dict()


def test_repeated_instance_ids_count_as_the_general_path_counts_them() -> None:
    # two replicatedJobs of one name: the last one's counts hold for both (counts are
    # kept by id), whichever path reads them
    [obj] = [
        d for d in corpus_docs("jobset/tpu-multislice-v6e-jax.yaml") if d.get("kind") == "JobSet"
    ]
    job = obj["spec"]["replicatedJobs"][0]
    twin = copy.deepcopy(job)
    twin["replicas"] = (job.get("replicas") or 1) + 2
    obj["spec"]["replicatedJobs"].append(twin)
    definition = builtin_registry().for_object(obj)
    assert ordinary_view(prepare(definition), obj, False) is None  # the general path counts
    pods = [c.pods for c in interpret(definition, obj).components]
    assert pods[-1] == pods[-2] > 0


def test_a_list_read_in_one_pass_leaves_odd_elements_to_the_general_path() -> None:
    # ids, templates and counts of the replicatedJobs are read in one loop over the list;
    # a count written as 2.0 (converted) or an element that is not an object (an error
    # with its place) is read the general way, with the same view either way
    [obj] = [
        d for d in corpus_docs("jobset/tpu-multislice-v6e-jax.yaml") if d.get("kind") == "JobSet"
    ]
    definition = builtin_registry().for_object(obj)
    obj["spec"]["replicatedJobs"][0]["replicas"] = 2.0
    compare(obj)  # whichever path reads it, both agree
    assert interpret(definition, obj).components[1].replicas == 2
    obj["spec"]["replicatedJobs"][0]["replicas"] = 2
    assert compare(obj)
    obj["spec"]["replicatedJobs"].append("not a job")
    assert ordinary_view(prepare(definition), obj, False) is None
    warnings = interpret(definition, obj).warnings
    assert any("replicatedJobs" in w for w in warnings), warnings
