"""The status the operator writes on definition objects: conditions ``Validated`` (with
every validation message) and ``CRDExists``, and which generation is in use. and ``Degraded``
while workloads fail to evaluate under the definition."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from wlmap.errors import Problem

MAX_MESSAGE = 4000
DEGRADED = "Degraded"


def condition(
    previous: Sequence[Mapping[str, Any]], kind: str, holds: bool, reason: str, message: str
) -> dict[str, Any]:
    """A condition (status ``True`` when it holds); its transition time moves only when its
    status changes."""
    status = "True" if holds else "False"
    before = next((c for c in previous if c.get("type") == kind), None)
    moved = before is None or before.get("status") != status
    since = _now() if before is None or moved else before.get("lastTransitionTime", _now())
    return {
        "type": kind,
        "status": status,
        "reason": reason,
        "message": message[:MAX_MESSAGE],
        "lastTransitionTime": since,
    }


def degraded_condition(
    previous: Sequence[Mapping[str, Any]],
    failures: Mapping[str, str],
    quarantine: str | None = None,
) -> dict[str, Any]:
    """``Degraded``: True while some workload fails to evaluate under the definition, or
    while the definition is quarantined (``quarantine`` says why: its workloads are
    skipped, and it is tried again with backoff)."""
    if quarantine is not None:
        message = (
            f"evaluation quarantined, retried with backoff: {quarantine}; "
            f"{len(failures)} workload(s) skipped or failing"
        )
        return condition(previous, DEGRADED, True, "Quarantined", message)
    if failures:
        first = next(iter(failures.values()))
        message = f"{len(failures)} workload(s) cannot be evaluated; first: {first}"
        return condition(previous, DEGRADED, True, "EvaluationFailed", message)
    message = "every workload evaluates cleanly"
    return condition(previous, DEGRADED, False, "EvaluatedCleanly", message)


def definition_status(
    obj: Mapping[str, Any],
    problems: Sequence[Problem],
    crd_exists: bool | None,
    in_use_generation: int | None,
    failures: Mapping[str, str] | None = None,
    quarantine: str | None = None,
) -> dict[str, Any]:
    """The status of a definition object after validating its current generation.

    ``failures`` (workload uid -> message) gives ``Degraded``; None when no workload of the
    definition was evaluated since start (the condition in ``obj`` is kept then);
    ``quarantine`` why the definition is quarantined, if it is. Both
    writers of ``Degraded`` compute it from the same record, so a handler reading an
    older version of the object cannot undo the other's write.
    """
    previous = (obj.get("status") or {}).get("conditions") or []
    errors = [p for p in problems if p.severity == "error"]
    validated = condition(
        previous,
        "Validated",
        not errors,
        "Valid" if not errors else "Invalid",
        "; ".join(str(p) for p in problems) or "every rule holds",
    )
    conditions = [validated]
    if crd_exists is not None:
        conditions.append(
            condition(
                previous,
                "CRDExists",
                crd_exists,
                "Served" if crd_exists else "NotServed",
                "the cluster serves the root kind"
                if crd_exists
                else "the cluster does not serve the root kind: is its CRD installed?",
            )
        )
    if failures is not None:
        conditions.append(degraded_condition(previous, failures, quarantine))
    computed = {c["type"] for c in conditions}
    conditions += [dict(c) for c in previous if c.get("type") not in computed | {"CRDExists"}]
    return {
        "conditions": conditions,
        "observedGeneration": (obj.get("metadata") or {}).get("generation"),
        "generationInUse": in_use_generation,
        "problems": [str(p) for p in problems][:100],
    }


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
