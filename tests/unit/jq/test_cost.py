"""The static cost heuristics: what they flag, and ordinary shapes they leave alone."""

from __future__ import annotations

import pytest

from wlmap.jq import costly_constructs, parse
from wlmap.jq.cost import backtracking_prone


@pytest.mark.parametrize(
    "pattern", ["(a|aa)+$", "(a+)+b", "([a-z]+)*$", "(x*)*", "((ab)+)+", "(a{1,}){2,}"]
)
def test_backtracking_prone_patterns(pattern: str) -> None:
    assert backtracking_prone(pattern)


@pytest.mark.parametrize(
    "pattern", ["^[a-z]+-[0-9]+$", "(ab)*c", "(a|b)c+", "[(a+)+]", r"\(a+\)+", "^(?<n>[0-9]+)"]
)
def test_linear_patterns(pattern: str) -> None:
    assert not backtracking_prone(pattern)


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ('.s | test("(a|aa)+$")', "backtrack exponentially"),
        ("[.[]?, .[]?, .[]?, .[]?] | [.[]?, .[]?, .[]?, .[]?] | [.[]?, .[]?, .[]?, .[]?]", "64"),
        ("[., .] | " * 6 + ".", "fan-out multiplied"),
        ("def f: [., .]; f | f | f", "def f applied to its own output 3 times"),
        ('"a" * 1e8 | explode', "a string repeated 1e+08 times"),
        (". + . | . + . | . + .", "added to itself 3 times"),
        (".[] as $a | .[] as $b | .[] as $c | 1", "3 nested iterating bindings"),
    ],
)
def test_costly_shapes_are_named(text: str, says: str) -> None:
    assert any(says in message for message in costly_constructs(parse(text)))


@pytest.mark.parametrize(
    "text",
    [
        ".a * 1048576",
        "[.spec.tasks[]? | .replicas] as $r | ($r | add) as $t | .x[] as $y | $y",
        '[.status.conditions[]? | select(.type == "Ready")] | length',
        ". as $o | .spec.replicatedJobs[] | .replicas * ($o.spec.n // 1)",
        '[.[] | .name] | join(",")',
    ],
)
def test_ordinary_shapes_are_not_flagged(text: str) -> None:
    assert costly_constructs(parse(text)) == []
