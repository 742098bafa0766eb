"""The phase of what a workload runs, beside the phase of deploying it.

Some kinds keep two phases side by side under ``.status``: one for the deployment the
controller drives, and one for the job that deployment runs, named by fewer of the same
words (RayJob's ``jobDeploymentStatus`` and ``jobStatus``). While the deployment says
Running, the job's own phase says more: a job not yet reporting (empty) or pending is
still Initializing, a job that succeeded or was stopped has Completed, and a failed one
has Failed. A failed job also fails a deployment that says Completed. Where the spec has
an integer ``backoffLimit`` and the status a ``failed`` count (the Job API's pair), a
job failed with retries left is Degraded: it will run again. All of it is a guess.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from wlmap.definitions.status import GenericStatus
from wlmap.infer._evidence import Evidence, Strength
from wlmap.infer._failures import matcher_jq
from wlmap.infer._phase import by_expression
from wlmap.infer._schema import Node, jq_path, show
from wlmap.infer._vocabulary import VOCABULARY, words

Mappings = dict[GenericStatus, list[dict[str, Any]]]
_NAMING = {"phase", "state", "status"}


def _subject(name: str) -> set[str]:
    """The words of a field's name that say whose phase it is (``jobDeploymentStatus`` ->
    job, deployment)."""
    return set(words(name)) - _NAMING


def find_inner_phase(status: Node, phase: Node) -> Node | None:
    """A string beside the phase at ``.status``, named like a phase by fewer of its
    words: the phase of what the phase's deployment runs."""
    if len(phase.path) != 2:
        return None
    outer = _subject(phase.path[-1])
    for node in status.children():
        name = node.path[-1]
        if node is phase or name == phase.path[-1] or node.type != "string":
            continue
        inner = _subject(name)
        if words(name)[-1:] in (["phase"], ["state"], ["status"]) and inner and inner < outer:
            return node
    return None


def _words_test(path: str, states: Sequence[GenericStatus]) -> str:
    listed = "|".join(sorted(w for s in states for w in VOCABULARY[s]))
    return f'({path} // "" | ascii_downcase | test("^({listed})$"))'


def _either(mappings: Mappings, state: GenericStatus, jq: Callable[[dict[str, Any]], str]) -> str:
    tests = [jq(m) for m in mappings.get(state, ())]
    return "(" + " or ".join(tests) + ")" if tests else "false"


def refine_by_inner_phase(
    mappings: Mappings,
    phase_path: str,
    inner: Node,
    spec: Node | None,
    status: Node,
) -> Evidence:
    """Rewrite ``mappings`` (the outer phase's) so the inner phase settles a Running or
    Completed outer phase; the evidence for the change."""

    def jq(matcher: dict[str, Any]) -> str:
        return matcher_jq(matcher, phase_path, None)

    path = jq_path(inner.path, optional=False)
    running = _either(mappings, GenericStatus.RUNNING, jq)
    completed = _either(mappings, GenericStatus.COMPLETED, jq)
    # A job does not pause: stopped is how it ended.
    done = _words_test(path, (GenericStatus.COMPLETED, GenericStatus.SUSPENDED))
    failed = _words_test(path, (GenericStatus.FAILED,))
    waiting = f'(({path} // "") == "" or {_words_test(path, (GenericStatus.INITIALIZING,))})'
    retry = _retries_left(spec, status)
    gone = f"({running} and {failed} and {retry})" if retry else "false"
    out: Mappings = {state: list(found) for state, found in mappings.items()}
    out[GenericStatus.RUNNING] = [
        by_expression(f"{running} and (({done} or {failed} or {waiting}) | not)")
    ]
    out[GenericStatus.COMPLETED] = [
        by_expression(f"({completed} and ({failed} | not)) or ({running} and {done})")
    ]
    no_retry = f" and ({retry} | not)" if retry else ""
    out.setdefault(GenericStatus.FAILED, []).append(
        by_expression(f"({completed} or {running}) and {failed}{no_retry}")
    )
    if retry:
        out.setdefault(GenericStatus.DEGRADED, []).append(by_expression(gone))
    out.setdefault(GenericStatus.INITIALIZING, []).append(by_expression(f"{running} and {waiting}"))
    mappings.clear()
    mappings.update(out)
    return Evidence(
        "inner phase",
        show(inner.path),
        show(inner.path),
        "a phase beside the phase, named by fewer of its words: the phase of what it "
        "runs settles a Running or Completed workload"
        + ("; failed with retries left (backoffLimit beside failed) is Degraded" if retry else ""),
        Strength.GUESS,
    )


def _retries_left(spec: Node | None, status: Node) -> str | None:
    """jq true while failures stay below the spec's backoffLimit, or None without the pair."""
    limit = spec.child("backoffLimit") if spec is not None else None
    failed = status.child("failed")
    if limit is None or failed is None or limit.type != "integer" or failed.type != "integer":
        return None
    default = limit.schema.get("default", 0)
    return (
        f"(({jq_path(failed.path, optional=False)} // 0)"
        f" < ({jq_path(limit.path, optional=False)} // {default}))"
    )
