"""path_problems separates assignable path expressions from read-only projections."""

from __future__ import annotations

import pytest

from wlmap.errors import ExpressionError
from wlmap.jq import Engine, parse, path_problems

from .conftest import libjq_all


@pytest.mark.parametrize(
    "text",
    [
        ".",
        ".spec.replicas",
        '.metadata.labels["jobset.sigs.k8s.io/replicatedjob-name"]',
        ".spec.replicatedJobs[].template",
        ".spec.replicatedJobs[0]",
        ".items[1:3]",
        ".a?.b[]?",
        ".a, .b",
        "(.a | .b)",
        '.spec.containers[] | select(.name == "main") | .resources',
        'if .kind == "A" then .a else .b end',
        'getpath(["spec", "suspend"])',
        "first(.spec.items[])",
        ".a | empty",
    ],
)
def test_assignable(text: str) -> None:
    assert path_problems(parse(text)) == []
    # libjq agrees that it is a path expression (a data error is fine, a path error is not).
    try:
        libjq_all(f"[path({text})]", {})
    except ValueError as err:
        message = str(err)
    else:
        message = ""
    assert "path" not in message.lower()


@pytest.mark.parametrize(
    ("text", "named"),
    [
        (".a // .b", "'//'"),
        ("{a: .a}", "object construction"),
        ("[.a]", "array construction"),
        ("1", "literal"),
        (".a + 1", "arithmetic"),
        (".a as $x | $x", "'as' binding"),
        (".spec | to_entries", "to_entries/0"),
        ("map(.a)", "map/1"),
        ("keys", "keys/0"),
        ("$x", "variable"),
        ("first(.a + 1)", "arithmetic"),
        (".a | tostring", "tostring/0"),
        ("try .a catch .b", "try ... catch"),
    ],
)
def test_read_only(text: str, named: str) -> None:
    found = path_problems(parse(text))
    assert any(named in message for message in found), found


DOC = {
    "spec": {
        "containers": [
            {"name": "main", "resources": {"limits": {"cpu": 1}}},
            {"name": "side"},
        ],
        "replicas": 2,
    }
}


@pytest.mark.parametrize(
    "text",
    [
        ".spec.replicas",
        ".spec.containers[].name",
        '.spec.containers[] | select(.name == "main") | .resources',
        ".spec.containers[-1]",
        ".spec.missing.deeper",
        ".spec.containers[]?.x?",
        ".spec | .containers[0], .replicas",
        ".spec[]",
        "first(.spec.containers[])",
        ".spec.containers[1:]",
    ],
)
def test_paths_match_libjq(text: str) -> None:
    program = Engine().compile(text)
    assert program.paths(DOC) == libjq_all(f"[path({text})]", DOC)[0]


def test_paths_of_read_only_expression_is_an_error() -> None:
    with pytest.raises(ExpressionError, match="not a path expression"):
        Engine().compile(".a // .b").paths(DOC)
