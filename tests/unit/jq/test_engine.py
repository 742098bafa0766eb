"""Engine and Program behaviour: caching, variables, errors, fallback to libjq."""

from __future__ import annotations

from typing import Any

import pytest

from wlmap.errors import ExpressionError
from wlmap.jq import Engine

DOC: dict[str, Any] = {
    "spec": {"replicas": 3, "items": [{"name": "a"}, {"name": "b", "n": 2.5}]},
    "metadata": {"annotations": {"n": "7", "bad": "x"}},
}


def test_compile_is_cached() -> None:
    engine = Engine()
    assert engine.compile(".a") is engine.compile(".a")


def test_variables_by_name() -> None:
    program = Engine().compile("$runtime.replicas + .spec.replicas")
    assert program.native
    assert program.all(DOC, {"runtime": {"replicas": 2}}) == [5]


def test_variables_in_libjq_fallback() -> None:
    program = Engine().compile("def f: $runtime.x; f, .spec.replicas")
    assert not program.native
    assert program.all(DOC, {"runtime": {"x": "y"}}) == ["y", 3]


def test_missing_variable() -> None:
    with pytest.raises(ExpressionError, match=r"\$runtime is not defined"):
        Engine().compile("$runtime").all(DOC)


def test_first_and_no_output() -> None:
    program = Engine().compile(".spec.items[].name")
    assert program.first(DOC) == "a"
    assert Engine().compile("empty").first(DOC) is None


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (".spec.replicas.x", 'Cannot index number with string ("x")'),
        (".spec.items[0] | .[0]", "Cannot index object with number (0)"),
        (".metadata.annotations.bad | tonumber", 'string ("x") cannot be parsed as a number'),
        ('error("custom")', "custom"),
        ("error({a: 1})", '{"a": 1}'),
        (".spec.items | .[] | .name - 1", 'string ("a") and number (1) cannot be subtracted'),
        ("def f: .spec.replicas.x; f", 'Cannot index number with string ("x")'),
    ],
)
def test_runtime_errors_keep_jq_message(text: str, message: str) -> None:
    with pytest.raises(ExpressionError) as info:
        Engine().compile(text).all(DOC)
    assert info.value.reason == message


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("nosuch(1)", "nosuch/1 is not defined"),
        ("{(1): 2}", "Cannot use number (1) as object key"),
        (".a |", "syntax error"),
        ("input", "unsafe"),
    ],
)
def test_compile_errors(text: str, fragment: str) -> None:
    with pytest.raises(ExpressionError, match=fragment.replace("(", r"\(").replace(")", r"\)")):
        Engine().compile(text)


def test_runtime_fallback_for_number_spelling() -> None:
    # tostring of 1e-05 depends on how libjq spells the number: evaluated by libjq.
    program = Engine().compile("tostring")
    assert program.native
    assert program.all(1e-05) == ["0.00001"]
    assert program.all(1.5) == ["1.5"]


def test_integral_results_are_ints() -> None:
    program = Engine().compile("4 / 2, 1 / 2, .spec.items[1].n * 2")
    assert program.native
    assert [type(x) for x in program.all(DOC)] == [int, float, int]


def test_assignment_only_on_request() -> None:
    with pytest.raises(ExpressionError, match="assignment"):
        Engine().compile(".spec.replicas = 1")
    program = Engine().compile(".spec.replicas = 1", allow_assignment=True)
    assert program.all(DOC)[0]["spec"]["replicas"] == 1


def test_outputs_do_not_share_structure_with_the_input() -> None:
    doc: dict[str, Any] = {"spec": {"template": {"labels": {"a": "1"}}, "n": 2.0}}
    program = Engine().compile(".spec.template, .spec.n")
    assert program.native
    template, n = program.all(doc)
    template["labels"]["a"] = "changed"
    assert doc["spec"]["template"]["labels"]["a"] == "1"
    assert type(n) is int
