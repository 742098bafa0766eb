"""A generated function per definition giving an ordinary object's status report.

It does what :func:`wlmap.workload.status.evaluate_status` does, written out matcher by
matcher: the phase, condition types, statuses, reasons and expected results each
matcher checks are constants of the definition, so only the object's values are read
and compared. Evidence is built, as there, for the matchers that hold, and for the
nearest misses only when they are read. An expression that fails raises (the caller
then takes the general path, which reports it).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from wlmap.jq import syntax as s
from wlmap.workload._direct_logic import Emitter, Unsupported
from wlmap.workload._direct_values import HELPERS, Fallback
from wlmap.workload._instances_source import Unusual
from wlmap.workload._status_plan import PlannedMatcher, status_plan
from wlmap.workload.compiled import CompiledDefinition
from wlmap.workload.status import (
    NO_EXPRESSION,
    StatusReport,
    condition_list,
    matched_result,
    result_text,
    status_report,
    text,
)

StatusReader = Callable[[Mapping[str, Any]], StatusReport]


def status_reader(compiled: CompiledDefinition) -> StatusReader:
    """The status reader generated for ``compiled`` (the ordinary path keeps it)."""
    names: dict[str, Any] = dict(_RUNTIME)
    source = "\n".join(_lines(compiled, names)) + "\n"
    exec(compile(source, f"<status of {compiled.name}>", "exec"), names)
    reader: StatusReader = names["status"]
    return reader


def _lines(compiled: CompiledDefinition, names: dict[str, Any]) -> list[str]:
    def constant(value: Any, prefix: str) -> str:
        name = f"{prefix}{len(names)}"
        names[name] = value
        return name

    plan = status_plan(compiled)
    if plan is None:
        return [
            "def status(obj):",
            "    return Report(('Undefined',), (), None, (), 'no statusDefinition')",
        ]
    # Every line sits in one `try` at depth 2; the trusted expressions are written out
    # by one emitter, so a key one matcher read is not read again by the next.
    emitter = Emitter()
    add = emitter.lines.append
    if plan.phase is None:
        add("        phase = None")
    else:
        add(f"        o = {constant(plan.phase.read, 'R')}(obj, None)")
        add("        phase = None if not o or o[0] is None else text(o[0])")
    if plan.fields is None:
        add("        conditions = []")
    else:
        read = (
            "None"
            if plan.conditions is None
            else f"{constant(plan.conditions.read, 'R')}(obj, None)"
        )
        add(f"        conditions = condition_list({plan.fields!r}, {read})")
    add("        by_type = {c['type']: c for c in conditions}")
    add("        matched = []")
    results = []
    for k, planned in enumerate(plan.matchers):
        matcher = constant(planned, "P")
        add(f"        r{k} = {_result(planned, emitter, names, constant)}")
        add(f"        if {_holds(planned, f'r{k}')}:")
        add(f"            matched.append(matched_result({matcher}, obj, phase, by_type, r{k}))")
        results.append(f"({matcher}, r{k})")
    add(
        f"        return status_report(matched, [{', '.join(results)}], obj, phase,"
        " conditions, by_type)"
    )
    for index, literal in enumerate(emitter.literals):
        names[f"L{index}"] = literal
    return [
        "def status(obj):",
        "    try:",
        *emitter.lines,
        "    except Fallback:",  # a value jq treats otherwise: the general path decides
        "        raise Unusual from None",
    ]


def _result(
    planned: PlannedMatcher,
    emitter: Emitter,
    names: dict[str, Any],
    constant: Callable[[Any, str], str],
) -> str:
    """An expression for the matcher's result, after the lines that compute it."""
    expression = planned.expression
    if expression is None:
        return "NO_EXPRESSION"
    node = expression.program.node
    if expression.direct and not (isinstance(node, s.Pipe) and isinstance(node.left, s.Iterate)):
        try:
            Emitter().value(node, "obj", 2)  # supported at all? (emits nothing shared)
        except (Unsupported, RecursionError):  # (nested too deeply to write out)
            pass
        else:
            out = emitter.value(node, "obj", 2)
            if out in emitter.bools:
                return f"'true' if {out} else 'false'"
            return f"result_text([whole({out})])"
    return f"result_text({constant(expression.read, 'R')}(obj, None))"


def _holds(planned: PlannedMatcher, result: str) -> str:
    """The test that every part of the matcher holds, as an expression."""
    parts = []
    if not planned.expression_only and planned.by_phase is not None:
        parts.append(f"phase == {planned.by_phase!r}")
    if not planned.expression_only:
        for kind, status, reason in planned.checks:
            found = f"by_type.get({kind!r})"
            test = [f"{found} is not None"]
            if status is not None:
                test.append(f"{found}.get('status') == {status!r}")
            if reason is not None:
                test.append(f"{found}.get('reason') == {reason!r}")
            parts.append("(" + " and ".join(test) + ")")
    if planned.expected_result is not None:
        parts.append(f"{result} == {planned.expected_result!r}")
    return " and ".join(parts) or "True"


_RUNTIME: dict[str, Any] = {
    **HELPERS,
    "Fallback": Fallback,
    "Unusual": Unusual,
    "whole": lambda value: int(value) if type(value) is float and value.is_integer() else value,
    "Report": StatusReport,
    "NO_EXPRESSION": NO_EXPRESSION,
    "condition_list": condition_list,
    "matched_result": matched_result,
    "result_text": result_text,
    "status_report": status_report,
    "text": text,
}
