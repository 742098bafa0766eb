"""The catalog's timestamp comparisons run in the native evaluator, never in libjq."""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.catalog.test_cases import all_cases
from wlmap import jq
from wlmap.catalog import builtin_definitions, builtin_registry
from wlmap.harness import run_case
from wlmap.workload import compile_definition

DATE_BUILTIN = re.compile(
    r"\b(fromdate(iso8601)?|todate(iso8601)?|strptime|strftime|mktime|gmtime)\b"
)
DATED = [d for d in builtin_definitions() if "fromdateiso8601" in str(d.model_dump())]


def test_the_podcliqueset_definition_compares_dates() -> None:
    assert "grove-io-podcliqueset-v1alpha1" in {d.name for d in DATED}


@pytest.mark.parametrize("isolated", [False, True], ids=["catalog", "untrusted"])
@pytest.mark.parametrize("definition", DATED, ids=lambda d: d.name)
def test_expressions_with_dates_compile_natively(definition: Any, isolated: bool) -> None:
    compiled = compile_definition(definition, jq.Engine(isolated=isolated))
    dated = {p: e for p, e in compiled.exprs.items() if DATE_BUILTIN.search(e.program.text)}
    assert dated, definition.name
    assert [p for p, e in dated.items() if not e.program.native] == []


@pytest.mark.parametrize(
    "name", [c.name for c in all_cases() if c.definition == "grove-io-podcliqueset-v1alpha1"]
)
def test_podcliqueset_cases_never_reach_libjq_for_dates(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    fallback = jq.Engine._libjq

    def no_dates_in_libjq(self: jq.Engine, program: Any, text: str, *rest: Any) -> Any:
        assert not DATE_BUILTIN.search(text), f"fell back to libjq: {text}"
        return fallback(self, program, text, *rest)

    monkeypatch.setattr(jq.Engine, "_libjq", no_dates_in_libjq)
    [case] = [c for c in all_cases() if c.name == name]
    result = run_case(case, builtin_registry())
    assert result.passed, result.mismatches
