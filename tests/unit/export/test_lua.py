"""The jq → Lua translator: what it refuses, by name, and the catalog's coverage."""

from __future__ import annotations

import pytest

from tests.hostile import HOSTILE
from wlmap.catalog import builtin_definitions
from wlmap.export import NotTranslatable, health_scripts, translate
from wlmap.export._regex import RegexNotTranslatable, lua_patterns

# Each hostile or unsupported construct and the words its refusal names.
REFUSED = [
    ("def f: f; f", "'def' (recursion)"),
    ("[..]", "'..' (recursion)"),
    ("[recurse]", "recurse/0"),
    ("[range(1e9)]", "range/1"),
    ("[limit(3; repeat(1))]", "limit/2"),
    ("until(false; .)", "until/2"),
    ("[while(true; .)] | length", "while/2"),
    ("$pods | length", "$pods (a variable given from outside the object)"),
    (".a = 1", "an assignment"),
    ("@base64", "a @format"),
    (".a | test(.b)", "test/1 with a regular expression computed at run time"),
    ('.a | test("(ab)+")', "test/1 of '(ab)+' (a quantified group)"),
    ('.a | test("x"; "i")', "test/2"),
    ("label $out | 1", "label/break"),
]


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_expressions_are_refused(name: str) -> None:
    with pytest.raises(NotTranslatable):
        translate(HOSTILE[name])


@pytest.mark.parametrize(("expression", "construct"), REFUSED)
def test_refuses_what_it_cannot_bound_or_express_naming_it(expression: str, construct: str) -> None:
    with pytest.raises(NotTranslatable) as refused:
        translate(expression)
    assert refused.value.construct.startswith(construct)
    assert expression.split(maxsplit=1)[0] in str(refused.value)


def test_a_variable_bound_in_the_expression_translates() -> None:
    lua = translate('(.a // "") as $s | $s == "x"')
    assert "BIND(" in lua.code
    assert not lua.needs_string


def test_string_functions_ask_for_the_string_library() -> None:
    assert translate(".a | ascii_downcase").needs_string
    assert translate('.a | test("^x")').needs_string
    assert not translate(".a | length > 0").needs_string


@pytest.mark.parametrize(
    ("regex", "patterns"),
    [
        ("Reconcile[A-Za-z]*Error$", ("Reconcile[A-Za-z]*Error$",)),
        (" is (invalid|forbidden): ", (" is invalid: ", " is forbidden: ")),
        (r"^v\d+\.x-y%", (r"^v%d+%.x%-y%%",)),
        (r"a|b\s", ("a", "b%s")),
    ],
)
def test_regexes_become_lua_patterns(regex: str, patterns: tuple[str, ...]) -> None:
    assert lua_patterns(regex) == patterns


@pytest.mark.parametrize("regex", ["(ab)*", "a{2}", r"\bx", "a*?", "a^b", "(?i)a", "[]a]"])
def test_regexes_outside_the_subset_are_refused(regex: str) -> None:
    with pytest.raises(RegexNotTranslatable):
        lua_patterns(regex)


def test_catalog_coverage_leaves_out_only_rules_reading_other_objects() -> None:
    scripts = health_scripts(builtin_definitions())
    refusals = [r for s in scripts for r in s.refusals]
    translated = sum(s.translated for s in scripts)
    assert translated >= 300
    base = "spec.structureDefinition.rootComponent.statusDefinition"
    assert {(r.definition, r.field) for r in refusals} == {
        ("grove-io-podcliqueset-v1alpha1", f"{base}.conditionsDefinition.path"),
        (
            "grove-io-podcliqueset-v1alpha1",
            f"{base}.statusMappings.running[0].byExpression.expression",
        ),
        (
            "grove-io-podcliqueset-v1alpha1",
            f"{base}.statusMappings.initializing[0].byExpression.expression",
        ),
    }
    assert all("$podCliques" in r.reason for r in refusals)
