"""The loader under malformed YAML/JSON, random structures and random jq: only wlmap errors escape."""

from __future__ import annotations

import contextlib
import copy
import json
from typing import Any

import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.unit.definitions.samples import VALID
from wlmap.definitions import parse_definitions
from wlmap.errors import DefinitionError, ManifestError, Problem
from wlmap.sources import parse_manifests

JQ_ALPHABET = st.sampled_from(
    [
        *list('.[]|,()"{}:$ ?-+*/%<>=!'),
        "..",
        "//",
        "as",
        "if",
        "then",
        "else",
        "end",
        "def",
        "reduce",
        "foreach",
        "select",
        "env",
        "input",
        "range",
        "recurse",
        "limit",
        "del",
        "path",
        "@base64",
        "\\(",
        "try",
        "catch",
        "label",
        "import",
        "include",
        "$__loc__",
        "ENV",
        "spec",
        "name",
        "1",
        "1e309",
        "x",
    ]
)
random_jq = st.lists(JQ_ALPHABET, max_size=12).map(" ".join) | st.text(max_size=30)

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(max_size=10),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=20,
)

EXPRESSION_SLOTS: list[tuple[Any, ...]] = [
    ("spec", "structureDefinition", "childComponents", 0, "instanceIdPath"),
    ("spec", "structureDefinition", "childComponents", 0, "specDefinition", "podTemplateSpecPath"),
    ("spec", "structureDefinition", "childComponents", 0, "scaleDefinition", "replicasPath"),
    (
        "spec",
        "structureDefinition",
        "childComponents",
        0,
        "podSelector",
        "componentTypeSelector",
        "keyPath",
    ),
    (
        "spec",
        "structureDefinition",
        "rootComponent",
        "statusDefinition",
        "conditionsDefinition",
        "path",
    ),
    (
        "spec",
        "structureDefinition",
        "rootComponent",
        "suspendDefinition",
        "suspendActions",
        0,
        "path",
    ),
]


def expect_only_definition_errors(text: str) -> None:
    problems: tuple[Problem, ...] = ()
    try:
        parse_definitions(text, "fuzz")
    except DefinitionError as exc:
        problems = exc.problems or (Problem("fuzz", "", ""),)
    assert all(p.message for p in problems), "every problem says what is wrong"


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=200))
def test_arbitrary_text(text: str) -> None:
    expect_only_definition_errors(text)


@settings(max_examples=200, deadline=None)
@given(json_values)
def test_arbitrary_json_documents(value: Any) -> None:
    expect_only_definition_errors(json.dumps(value))


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(EXPRESSION_SLOTS), random_jq)
def test_random_jq_in_every_kind_of_slot(slot: tuple[Any, ...], expression: str) -> None:
    doc = copy.deepcopy(VALID)
    node: Any = doc
    for part in slot[:-1]:
        node = node[part]
    node[slot[-1]] = expression
    expect_only_definition_errors(yaml.safe_dump(doc))


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(EXPRESSION_SLOTS), json_values)
def test_wrong_types_in_expression_slots(slot: tuple[Any, ...], value: Any) -> None:
    doc = copy.deepcopy(VALID)
    node: Any = doc
    for part in slot[:-1]:
        node = node[part]
    node[slot[-1]] = value
    expect_only_definition_errors(json.dumps(doc, default=str))


def test_deeply_nested_input_is_an_error_not_a_crash() -> None:
    expect_only_definition_errors("[" * 5000 + "]" * 5000)
    expect_only_definition_errors("a: " + "{b: " * 3000 + "1" + "}" * 3000)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=200))
def test_manifest_reader_on_arbitrary_text(text: str) -> None:
    with contextlib.suppress(ManifestError):
        parse_manifests(text, "fuzz")
