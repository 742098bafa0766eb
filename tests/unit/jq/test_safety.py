"""The static safety check rejects every construct that escapes the input or is unbounded."""

from __future__ import annotations

import pytest

from wlmap.jq import parse, unsafe_constructs


def problems(text: str, *, allow_assignment: bool = False) -> list[str]:
    return unsafe_constructs(parse(text), allow_assignment=allow_assignment)


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("env", "env/0"),
        ("$ENV.HOME", "$ENV"),
        ("input", "input/0"),
        ("[inputs]", "inputs/0"),
        ("input_filename", "input_filename/0"),
        ("input_line_number", "input_line_number/0"),
        ("$__loc__", "$__loc__"),
        ("debug", "debug/0"),
        ('debug("x")', "debug/1"),
        ("stderr", "stderr/0"),
        ("halt", "halt/0"),
        ('halt_error("x")', "halt_error/1"),
        ("get_search_list", "get_search_list/0"),
        ("$__prog_args", "$__prog_args"),
        ("repeat(1)", "repeat/1"),
        ("recurse", "recurse/0"),
        ("recurse(.[])", "recurse/1"),
        ("recurse(.[]; . != null)", "recurse/2"),
        ("recurse_down", "recurse_down/0"),
        ("..", ".."),
        ("range(10)", "range/1"),
        ("range(0; 10; 2)", "range/3"),
        ("[while(. < 3; . + 1)]", "while/2"),
        ("until(. > 3; . + 1)", "until/2"),
        ("[limit(3; .[])]", "limit/2"),
        ("walk(.)", "walk/1"),
        ("[paths]", "paths/0"),
        ("[leaf_paths]", "leaf_paths/0"),
        ('import "x" as x; .', "import"),
        ('include "x"; .', "include"),
        (".a = 1", "'='"),
        (".a |= 1", "'|='"),
        (".a += 1", "'+='"),
        (".a //= 1", "'//='"),
        ("del(.a)", "del/1"),
        ('setpath(["a"]; 1)', "setpath/2"),
        ('delpaths([["a"]])', "delpaths/1"),
        ("now", "now/0"),
        ("now - (.metadata.creationTimestamp | fromdate)", "now/0"),
        ("localtime", "localtime/0"),
        ('strflocaltime("%H")', "strflocaltime/1"),
    ],
)
def test_blocked_construct_is_named(text: str, named: str) -> None:
    found = problems(text)
    assert found, text
    assert any(named in message for message in found), found


@pytest.mark.parametrize(
    "text",
    [
        "def f: env; 1",
        "def f: def g: input; g; f",
        "{(env | tostring): 1}",
        "{a: $ENV}",
        '"x\\(env)"',
        '@base64 "\\(input)"',
        "reduce range(3) as $x (0; . + 1)",
        "reduce .[] as $x (0; . + ($x | recurse | 1))",
        "foreach .[] as $x (0; 1; debug)",
        "if env then 1 else 2 end",
        "if 1 then 2 else input end",
        "try 1 catch env",
        "[.[] | select(.a | ..)]",
        "map(walk(.))",
        "sort_by(recurse)",
        ". as [$a] | $__loc__",
        ". as {(env|tostring): $a} | $a",
        "label $l | input",
        "(1 as $x | range($x))",
        "[.[] | (debug)]",
        "-input",
        ".[env]",
        ".[input:]",
    ],
)
def test_blocked_construct_cannot_hide(text: str) -> None:
    assert problems(text), text


def test_shadowing_a_blocked_builtin_is_rejected() -> None:
    found = problems("def range: 1; range")
    assert any("def range" in message for message in found)


@pytest.mark.parametrize(
    "text",
    ["def f: f; f", "def f: 1 + f; 1", "def a: b; def b: a; a", "def f(g): def h: f(g); h; 1"],
)
def test_recursive_definitions_are_rejected(text: str) -> None:
    assert any("recursive" in message for message in problems(text))


@pytest.mark.parametrize(
    "text",
    [
        ".spec.replicatedJobs[].name",
        '.metadata.labels["jobset.sigs.k8s.io/replicatedjob-name"]',
        ".spec.services | to_entries[] | .key",
        "(.spec.replicas // 1)",
        '.status.conditions[] | select(.type=="Ready") | .status',
        "[.status.replicatedJobsStatus[]? | .failed] | add",
        '.metadata.annotations["a"] | tonumber',
        'if .x then "a" else "b" end',
        "def double: . * 2; map(double)",
        "label $out | .[] | if . then ., break $out else empty end",
        'getpath(["a"]) | splits(",") | ltrimstr("x") | @sh',
        'error("x")',
        "with_entries(.value |= tostring)",
        # jq computes these in UTC, whatever the process's time zone
        ".lastTransitionTime | fromdateiso8601 - (.creationTimestamp | fromdate)",
        '.t | strptime("%Y-%m-%d") | mktime | todate',
        '.t | gmtime | strftime("%Y-%m-%dT%H:%M:%SZ")',
    ],
)
def test_safe_programs_pass(text: str) -> None:
    found = problems(text)
    assert found == [] or all("assignment" in message for message in found)


def test_safe_programs_without_assignment_are_clean() -> None:
    assert problems(".spec.replicatedJobs[] | {name, n: (.replicas // 1)}") == []


def test_assignment_allowed_on_request() -> None:
    assert problems(".a = 1 | del(.b)", allow_assignment=True) == []
    assert problems(".a = 1 | env", allow_assignment=True) == ["env/0 reads the environment"]


def test_every_problem_is_reported() -> None:
    assert len(problems("env, input, range(3)")) == 3
