"""Definitions from a cluster run with an isolated engine: hostile jq cannot hang the process."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from tests.corpus import corpus_object
from tests.unit.workload.definitions import define
from wlmap import jq
from wlmap.errors import LimitExceededError
from wlmap.workload import compile_definition, interpret

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
