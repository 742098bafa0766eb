"""The records a status report is made of: each checked part, each matcher's outcome,
and the report itself."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import field
from typing import Any, Literal

from wlmap.definitions.status import GenericStatus
from wlmap.workload._records import lazy, record


@record
class Evidence:
    """One checked part of a matcher: what was expected, what was found, whether it held."""

    check: Literal["phase", "condition", "expression"]
    expected: dict[str, Any]
    found: Any
    holds: bool
    # For an expression: the object's fields it reads, with their values.
    facts: tuple[tuple[str, Any], ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        shown = {
            "check": self.check,
            "expected": self.expected,
            "found": self.found,
            "holds": self.holds,
        }
        if self.check == "expression":
            shown["facts"] = dict(self.facts)
        return shown


@record
class MatcherResult:
    """The outcome of one matcher of one generic status."""

    status: GenericStatus
    index: int
    evidence: tuple[Evidence, ...]

    @property
    def matched(self) -> bool:
        """All parts held."""
        return all(e.holds for e in self.evidence)

    @property
    def score(self) -> float:
        """Share of the parts that held (how near a miss is)."""
        return sum(e.holds for e in self.evidence) / len(self.evidence) if self.evidence else 0.0

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        return {
            "status": self.status.value,
            "matcher": self.index,
            "evidence": [e.to_dict() for e in self.evidence],
        }


@record(slots=False)
class StatusReport:
    """The generic statuses of a workload and why.

    The nearest misses are worked out when first read: most consumers only want phases.
    """

    phases: tuple[str, ...]
    matched: tuple[MatcherResult, ...]
    phase: str | None
    conditions: tuple[dict[str, Any], ...]
    note: str | None = None
    misses_reader: Callable[[], tuple[MatcherResult, ...]] = field(
        default=tuple, repr=False, compare=False
    )

    @lazy
    def nearest_misses(self) -> tuple[MatcherResult, ...]:
        """The matchers that came closest to holding, when none held."""
        return self.misses_reader()

    def to_dict(self) -> dict[str, Any]:
        """The ``explanation`` object of the JSON contract."""
        return {
            "phases": list(self.phases),
            "matched": [m.to_dict() for m in self.matched],
            "nearestMisses": [m.to_dict() for m in self.nearest_misses],
            "observed": {"phase": self.phase, "conditions": list(self.conditions)},
            "note": self.note,
        }
