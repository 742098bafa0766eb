"""Direct readers give what the general reader gives: outputs, errors and limits."""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from tests.corpus import CORPUS
from wlmap import jq
from wlmap.catalog import builtin_registry
from wlmap.errors import ExpressionError, LimitExceededError
from wlmap.workload import prepare
from wlmap.workload._direct import direct_reader

LOADER: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
SHAPES = [
    ".spec.replicatedJobs[]?.name",
    ".spec.replicatedJobs[]? | .replicas // 1",
    ".spec.replicatedJobs[]?.template.spec.template",
    '.metadata.labels["ray.io/group"]',
    ".status.conditions",
    ".spec.replicas // 1",
    ".spec.x // null",
    ".spec.x // false",
    ".spec.items[]?",
    ".spec.items[]?.a | .b // 0",
    '.spec.x != true and any(.status.conditions[]?; .type == "A" and .status == "True")',
    '(any(.status.conditions[]?; .type == "A" or .type == "B") | not) or .spec.x == null',
    "((.spec.items // []) | length > 0) and (.spec.replicas // 0) >= 1",
    ".spec.replicas < 2 or .spec.x == 1 or .spec.x != 0.5",
    "any(.spec.items[]; .a == false)",
    "(.status.conditions | length) <= 1",
    "([.spec.items[]? | (.a // 0) + (.b // 0)] | add // 0) >= ([.spec.items[]?] | length)",
    "[.spec.replicatedJobs[]? | .replicas // 1] | add",
    "[.spec.items[]] | add",
    ".spec.replicatedJobs[]? | .replicas // .x // 0",
    ".spec.items[] | .a + 1",
    "if (.status.conditions // []) | length > 0 then .spec.x == 1 else .spec.replicas end",
    ".spec | if . == null then 0 else .replicas // 1 end",
    "if .spec.x then 1 end",
    ".spec.replicatedJobs[]? | [.replicas // 1, .x // (.replicas // 1)] | min",
    "[.spec.replicas, .spec.x // 2] | max",
    "[.spec.items[]?] | min",
    "[] | max",
    '.spec.x != "y" and .spec.x != null and (.spec.x == "z" | not)',
    'any(.status.conditions[]?; .type == "A" or .type == "B" or .type == null)',
]
ODD_INPUTS: list[Any] = [
    None,
    {},
    {"spec": None},
    {"spec": "text"},
    {"spec": 3},
    {"spec": []},
    {"spec": {"replicatedJobs": None, "items": None, "replicas": 0, "x": False}},
    {"spec": {"replicatedJobs": "no", "items": 7, "replicas": False, "x": 0}},
    {"spec": {"replicatedJobs": [None, {"name": 2.0, "replicas": None}], "replicas": 2.0}},
    {"spec": {"replicatedJobs": [{"name": "a"}, "b"], "items": {"k": {"a": {"b": 1.5}}}}},
    {"spec": {"replicatedJobs": [{"template": {"spec": []}}], "items": [[1], None, {"a": 4}]}},
    {"spec": {"replicatedJobs": {"one": {"name": "x", "replicas": 3}}, "items": [True, 1.0]}},
    {"metadata": {"labels": {"ray.io/group": "g"}}, "status": {"conditions": [{"type": "A"}]}},
    {"metadata": {"labels": ["ray.io/group"]}, "status": "none"},
    {"status": {"conditions": [{"type": "A", "status": "True"}, 5]}, "spec": {"x": 1.0}},
    {"status": {"conditions": [5, {"type": "A", "status": "True"}]}, "spec": {"x": True}},
    {"status": {"conditions": [{"type": "B"}, {"type": ["A"]}]}, "spec": {"x": {"y": 1}}},
    {"status": {"conditions": "AB"}, "spec": {"replicas": 1.5, "items": {"a": {"a": False}}}},
    {"status": {"conditions": 12}, "spec": {"replicas": "2", "x": 0, "items": [{"a": 0}]}},
    {"status": {"conditions": None}, "spec": {"replicas": None, "x": [1], "items": [None]}},
    {"spec": {"items": [{"a": 1, "b": 2}, {"a": None}, 3], "replicatedJobs": [{"replicas": 2}]}},
    {"spec": {"items": [{"a": 1, "b": 2.5}], "replicatedJobs": [{"replicas": 2**53}, {}]}},
    {"spec": {"items": [{"a": "x", "b": "y"}], "replicatedJobs": [{"replicas": "2"}]}},
    {"spec": {"items": [1, 2, None]}},
    {"spec": {"items": [3, 1.0, 1, 2.5], "replicas": 1, "x": 1.0}},
    {"spec": {"items": [2.0, 2, 0.5], "replicas": 2, "x": 2.0}},
    {"spec": {"items": [True, 1], "replicatedJobs": [{"replicas": 4, "x": 2}, {"x": "3"}]}},
    {"spec": {"replicatedJobs": [{"replicas": 0, "x": 1.5}, {"replicas": 2.5}], "x": [1]}},
    [],
    "text",
    1.0,
]


def outcome(read: jq.Reader, value: Any) -> Any:
    """The outputs, or the class and message of the error."""
    try:
        return read(value)
    except ExpressionError as exc:
        return (type(exc), str(exc))


def readers(text: str, engine: jq.Engine) -> tuple[jq.Reader, jq.Reader]:
    program = engine.compile(text)
    general = program.reader()
    direct = direct_reader(program, general, engine.limits.max_outputs)
    assert direct is not None, f"{text} has a direct reader"
    return direct, general


@pytest.mark.parametrize("text", SHAPES)
def test_odd_inputs_give_the_general_readers_outputs_and_errors(text: str) -> None:
    direct, general = readers(text, jq.default_engine())
    for value in ODD_INPUTS:
        expected = outcome(general, value)
        found = outcome(direct, value)
        assert found == expected, (text, value)
        assert [type(v) for v in found] == [type(v) for v in expected], (text, value)


def test_an_error_is_reported_as_jq_reports_it() -> None:
    direct, _ = readers(".spec.replicas // 1", jq.default_engine())
    with pytest.raises(ExpressionError, match="Cannot index string"):
        direct({"spec": "text"})


def test_more_outputs_than_the_limit_are_refused() -> None:
    engine = jq.Engine(jq.Limits(max_outputs=3))
    direct, _ = readers(".spec.items[]?", engine)
    assert direct({"spec": {"items": [1, 2, 3]}}) == [1, 2, 3]
    with pytest.raises(LimitExceededError):
        direct({"spec": {"items": [1, 2, 3, 4]}})


@pytest.mark.parametrize(
    "text",
    [".a.b?", ".a[].b", "[.a[]?.b]", ".a | tostring", ".a[]? | (.b, .c)", ".a | keys", "$x"],
)
def test_other_shapes_keep_the_general_reader(text: str) -> None:
    program = jq.default_engine().compile(text)
    assert direct_reader(program, program.reader(), 10) is None


def test_nested_loops_keep_the_general_reader_and_its_time_limit() -> None:
    engine = jq.Engine(jq.Limits(timeout_seconds=0.2))
    program = engine.compile('any(.a[]?; any(.a[]?; any(.a[]?; . == "x")))')
    general = program.reader()
    assert direct_reader(program, general, 10) is None
    node: dict[str, Any] = {"a": []}
    node["a"].extend([node] * 1000)  # a billion steps through the three loops
    with pytest.raises(LimitExceededError):
        general(node)


def test_an_expression_nested_deeper_than_python_allows_keeps_the_general_reader() -> None:
    # `//` nests to the right; Python allows 100 levels of indentation in one function
    program = jq.default_engine().compile(" // ".join([".y"] * 150 + ["([.x[]?] | length)"]))
    general = program.reader()
    assert direct_reader(program, general, 10) is None
    assert general({"x": [1, 2]}) == [2]


def test_catalog_expressions_read_corpus_objects_as_the_general_reader_does() -> None:
    registry = builtin_registry()
    checked = 0
    for path in sorted(CORPUS.glob("*/*.yaml")):
        if path.parent.name == "crds":  # definitions of kinds, not workloads
            continue
        for obj in yaml.load_all(path.read_text(encoding="utf-8"), Loader=LOADER):
            entry = (
                registry.find(str(obj.get("apiVersion")), str(obj.get("kind")))
                if isinstance(obj, dict)
                else None
            )
            if entry is None:
                continue
            for expr in prepare(entry.definition).exprs.values():
                general = expr.program.reader()
                direct = direct_reader(expr.program, general, 10_000)
                if direct is not None:
                    assert outcome(direct, obj) == outcome(general, obj), (expr.text, path.name)
                    checked += 1
    if not checked:
        pytest.skip("the corpus is not available")
    assert checked > 1000
