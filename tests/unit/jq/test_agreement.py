"""The native evaluator produces exactly what libjq produces, on random and real inputs."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import jq
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from wlmap.errors import ExpressionError
from wlmap.jq import parse
from wlmap.jq._native import compile_native
from wlmap.jq._native_base import Code, Ctl, Env
from wlmap.jq._values import JqError, Unsupported, error_message, fresh

from .conftest import libjq_all, load_objects

VARIABLES = {"v": {"a": 1, "b": [1, "x"]}}


def canonical(value: Any) -> str:
    """JSON text that tells ``true`` from ``1`` but ``1.0`` and ``1`` apart only by value."""
    return json.dumps(fresh(value))


def native_all(text: str, value: Any) -> list[Any] | None:
    """Native outputs, or None when the program or this input is outside the subset.

    The program is also compiled as an untrusted one (charging a size budget that is
    large enough here): both forms must give the same outputs or the same error.
    """
    node = parse(text)
    code = compile_native(node, frozenset(VARIABLES))
    if code is None:
        return None
    bounded = compile_native(node, frozenset(VARIABLES), bounded=True)
    assert bounded is not None, text
    plain, charged = run_native(code, value, 0), run_native(bounded, value, 10**9)
    if plain is None or charged is None:
        return None
    assert described(charged) == described(plain), text
    if isinstance(plain, JqError):
        raise plain
    return plain


def run_native(code: Code, value: Any, cells: int) -> list[Any] | JqError | None:
    env = Env(dict(VARIABLES), Ctl(time.monotonic() + 5, cells))
    try:
        return list(code.gen(value, env))
    except Unsupported:
        return None
    except JqError as err:
        return err


def described(result: list[Any] | JqError) -> str:
    if isinstance(result, JqError):
        return f"error: {error_message(result.value)}"
    return "[" + ",".join(canonical(out) for out in result) + "]"


def assert_agree(text: str, value: Any) -> bool:
    """Assert native == libjq (or both fail with the same message); False if not native."""
    try:
        jq.compile(text, args=VARIABLES)  # syntax and definitions only
    except ValueError as err:
        if "syntax error" in str(err):  # our parser must reject it too
            with pytest.raises(ExpressionError):
                parse(text)
        return False
    try:
        expected: list[Any] | str = libjq_all(text, value, VARIABLES)
    except ValueError as err:
        expected = f"error: {err}"
    try:
        got = native_all(text, value)
    except JqError as err:
        got_text = f"error: {error_message(err.value)}"
        assert got_text == expected, text
        return True
    if got is None:
        return False
    assert isinstance(expected, list), (text, expected, got)
    assert canonical(got) == canonical(expected), text
    return True


# -- random programs over random values ---------------------------------------------------
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-20, 20),
    st.sampled_from([0.5, -1.25, 2.0, 1e-5, 3.75]),
    st.sampled_from(["", "a", "b", "ab", "A,b", "1", "2.5", "é", '{"a":1}', "x y"]),
)
json_values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(
            st.sampled_from(["a", "b", "c", "key", "value", "name"]), inner, max_size=4
        ),
    ),
    max_leaves=12,
)

LEAVES = [
    ".", ".a", ".b", ".c", ".[0]", ".[-1]", ".[]", ".[]?", ".a?", ".[1:]", ".[:-1]", '."a"',
    "1", "2", "-1", "0.5", '"a"', '"b,c"', "null", "true", "false", "[]", "{}", "$v",
    "length", "keys", "type", "tostring", "tojson", "not", "add", "sort", "first", "last",
    "to_entries", "from_entries", "values", "numbers", "strings", "arrays", "objects",
    "empty", "-.", "ascii_downcase", "ascii_upcase", "unique", "min", "max", "flatten",
    "keys_unsorted", "any", "all", "tonumber", "fromjson", "floor", "utf8bytelength",
    "iterables", "scalars", "nulls", "booleans", "error", "$v.a", "$v.b[]",
    "fromdateiso8601", "todate", "gmtime", "mktime", '"2024-02-29T23:59:60Z"',
]  # fmt: skip
BINARY = ["|", ",", "+", "-", "*", "/", "%", "==", "!=", "<", "<=", ">", ">=", "and", "or", "//"]
UNARY = [
    "[{}]", "({})?", "try {}", "try {} catch .", "select({})", "map({})", "sort_by({})",
    "group_by({})", "unique_by({})", "min_by({})", "max_by({})", "any({})", "all({})",
    "first({})", "last({})", "has({})", "contains({})", '"x\\({})y"', "{{a: {}}}",
    "{{({}): 1}}", ".[{}]", "map_values({})", "with_entries({})", "join({})", "split({})",
    "startswith({})", "ltrimstr({})", "rtrimstr({})", "endswith({})", "getpath({})",
    "add({})", "in({})", "flatten({})", "error({})", "({} as $x | $x)", "({} as $v | .a)",
    "[.[]?|{}]", '@json "v=\\({})"', "test(\"a\")", "{}[0]", "{}.a", "{}[]?",
    "strptime({})", "strftime({})",
]  # fmt: skip


@st.composite
def programs(draw: st.DrawFn, depth: int = 3) -> str:
    if depth == 0 or draw(st.integers(0, 2)) == 0:
        return draw(st.sampled_from(LEAVES))
    kind = draw(st.integers(0, 3))
    if kind == 0:
        op = draw(st.sampled_from(BINARY))
        return f"({draw(programs(depth - 1))} {op} {draw(programs(depth - 1))})"
    if kind == 1:
        return draw(st.sampled_from(UNARY)).format(draw(programs(depth - 1)))
    if kind == 2:
        cond, then, other = (draw(programs(depth - 1)) for _ in range(3))
        return f"(if {cond} then {then} else {other} end)"
    source, init, update = (draw(programs(depth - 1)) for _ in range(3))
    return f"(reduce {source} as $x ({init}; {update}))"


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=programs(), value=json_values)
def test_native_agrees_with_libjq(text: str, value: Any) -> None:
    assume(assert_agree(text, value))


# -- hand-picked programs on real manifests -----------------------------------------------
CORPUS_PROGRAMS = [
    ".spec.replicatedJobs[].name",
    ".spec.template",
    '.metadata.labels["jobset.sigs.k8s.io/replicatedjob-name"]',
    ".spec.workerGroupSpecs[] | .replicas",
    ".spec.workerGroupSpecs[]? | .replicas",
    ".status.conditions",
    ".spec.services | to_entries[] | .key",
    "(.spec.replicas // 1)",
    '.status.conditions[] | select(.type=="Ready") | .status',
    "[.status.replicatedJobsStatus[]? | .failed] | add",
    '.metadata.annotations["a"] | tonumber',
    ".spec.suspend == true",
    'if .x then "a" else "b" end',
    ".metadata.name",
    ".kind + \"/\" + .metadata.name",
    '"\\(.apiVersion)/\\(.kind)"',
    ".metadata | keys",
    ".metadata.labels // {} | to_entries | map(.key) | sort",
    ".spec | keys_unsorted",
    "[.. | numbers?] | length",
    ".spec.replicatedJobs | map({name, replicas: (.replicas // 1)})",
    ".spec.replicatedJobs[]? | .template.spec.template.spec.containers[] | .image",
    "[.spec.replicatedJobs[]?.replicas // 1] | add",
    ".spec.replicatedJobs | length",
    "[.spec.replicatedJobs[]? | .name] | join(\",\")",
    ".spec.headGroupSpec.template.spec.containers[0].resources.limits",
    "[.spec.workerGroupSpecs[]? | .template.spec.containers[]?"
    ' | .resources.limits["nvidia.com/gpu"] // 0 | tonumber?] | add',
    ".spec.workerGroupSpecs | sort_by(.groupName) | map(.groupName)",
    "reduce (.spec.workerGroupSpecs[]? | .replicas // 1) as $r (0; . + $r)",
    "[.spec.template.spec.containers[]? | .name | ascii_upcase]",
    ".spec | has(\"suspend\")",
    "[paths] | length",
    ".metadata.labels | with_entries(select(.key | startswith(\"app\")))",
    '.spec.replicatedJobs[]? | select(.name | test("^work")) | .replicas',
    "tojson | length",
    ".spec | tostring | length",
    ".metadata.name | split(\"-\") | first",
    "[.spec.replicatedJobs[]? | .template.spec.parallelism] | max",
    ".spec.replicatedJobs | group_by(.replicas) | map(length)",
]  # fmt: skip


def _manifests(corpus_dir: Path) -> list[dict[str, Any]]:
    objects: list[dict[str, Any]] = []
    for folder in ("jobset", "ray-raycluster", "core-workloads", "core-gpu", "kubeflow-pytorchjob"):
        for path in (
            sorted((corpus_dir / folder).glob("*.yaml")) if (corpus_dir / folder).is_dir() else []
        ):
            objects.extend(load_objects(path))
    return objects


@pytest.mark.parametrize("text", CORPUS_PROGRAMS)
def test_native_agrees_on_corpus(corpus_dir: Path, text: str) -> None:
    manifests = _manifests(corpus_dir)
    assert manifests
    for manifest in manifests:
        assert_agree(text, manifest)


@pytest.mark.parametrize(
    "text",
    [
        ".spec.replicatedJobs[].name",
        '.metadata.labels["jobset.sigs.k8s.io/replicatedjob-name"]',
        "(.spec.replicas // 1)",
        '.status.conditions[] | select(.type=="Ready") | .status',
        "[.status.replicatedJobsStatus[]? | .failed] | add",
        '.metadata.annotations["a"] | tonumber',
        ".spec.suspend == true",
        'if .x then "a" else "b" end',
        ".spec.services | to_entries[] | .key",
        ".spec.workerGroupSpecs[] | .replicas",
    ],
)
def test_typical_expressions_are_native(text: str) -> None:
    assert compile_native(parse(text), frozenset()) is not None


@pytest.mark.parametrize(
    "text", ["[(try . as $v | .a)]", '[try error("x") catch . as $v | $v]', "[try -1 catch .]"]
)
def test_try_takes_a_postfix_term(text: str) -> None:
    # a following `as` binds the whole `try`, as libjq reads it
    values: list[Any] = [[], {"a": 1}]
    for value in values:
        assert_agree(text, value)
