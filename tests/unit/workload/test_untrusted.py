"""Definitions not shipped with wlmap run on the untrusted engine: hostile jq cannot hang,
exhaust or abort the process, and its failure is reported where the expression is."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
import yaml

from tests.corpus import corpus_object
from tests.hostile import EXPRESSION_FIELD, HOSTILE, hostile_document
from tests.unit.workload.definitions import define
from wlmap import jq
from wlmap.catalog import builtin_registry
from wlmap.definitions import Definition, definition_from_mapping
from wlmap.errors import LimitExceededError
from wlmap.workload import compile_definition, interpret, prepare

# Statically safe (no recursion, no unbounded generator), but cubic in the input size and
# outside the native subset, so it runs on libjq.
SLOW = define(
    """
apiVersion: wlmap.dev/v1alpha1
kind: WorkloadMap
metadata: {name: slow}
spec:
  structureDefinition:
    rootComponent:
      name: x
      kind: {group: jobset.x-k8s.io, version: v1alpha2, kind: JobSet}
      statusDefinition:
        statusMappings:
          running:
            - byExpression:
                expression: >-
                  [.spec.n[] as $a | .spec.n[] as $b | .spec.n[] as $c | .spec.n[]
                   | label $out | $a + $b + $c] | length
                expectedResult: "1"
"""
)


@pytest.fixture
def isolated() -> Iterator[jq.Engine]:
    with jq.Engine(jq.Limits(timeout_seconds=1.0), isolated=True) as engine:
        yield engine


def test_runaway_expression_is_stopped_and_reported(isolated: jq.Engine) -> None:
    compiled = compile_definition(SLOW, isolated)
    obj = dict(corpus_object("jobset/tpu-multislice-v6e-jax.yaml", "JobSet"))
    obj["spec"] = {**obj["spec"], "n": list(range(400))}
    start = time.monotonic()
    view = interpret(compiled, obj)
    assert time.monotonic() - start < 10
    assert view.phases == ("Undefined",)
    assert any("evaluation exceeded 1 seconds" in w for w in view.warnings), view.warnings
    with pytest.raises(LimitExceededError):
        interpret(compiled, obj, strict=True)


def test_isolated_engine_gives_the_same_view(isolated: jq.Engine) -> None:
    obj = dict(corpus_object("jobset/tpu-multislice-v6e-jax.yaml", "JobSet"))
    obj["spec"] = {**obj["spec"], "n": [1]}
    compiled = compile_definition(SLOW, isolated)
    assert interpret(compiled, obj, strict=True).phases == ("Running",)


def hostile(expression: str) -> Definition:
    return definition_from_mapping(hostile_document(expression))


@pytest.mark.parametrize("name", list(HOSTILE))
def test_hostile_definition_loaded_by_a_library_user_is_bounded(name: str) -> None:
    definition = hostile(HOSTILE[name])
    obj = corpus_object("jobset/tpu-multislice-v6e-jax.yaml", "JobSet")
    start = time.monotonic()
    view = interpret(definition, obj)
    assert time.monotonic() - start < 30
    assert view.phases == ("Undefined",)
    [warning] = [w for w in view.warnings if "hostile" in w]
    assert "definition 'hostile'" in warning
    assert EXPRESSION_FIELD in warning
    assert "exceeded" in warning
    with pytest.raises(LimitExceededError):
        interpret(definition, obj, strict=True)


def test_only_the_catalog_runs_on_the_trusted_engine() -> None:
    obj = corpus_object("jobset/tpu-multislice-v6e-jax.yaml", "JobSet")
    builtin = builtin_registry().for_object(obj)
    assert builtin is not None
    trusted = prepare(builtin)
    assert all(e.program._engine is jq.default_engine() for e in trusted.exprs.values())
    copy = define(yaml.safe_dump(builtin.model_dump(by_alias=True, exclude_none=True)))
    untrusted = prepare(copy)
    assert all(e.program._engine is jq.untrusted_engine() for e in untrusted.exprs.values())
    # the same facts either way
    assert interpret(untrusted, obj).to_dict() == interpret(trusted, obj).to_dict()
