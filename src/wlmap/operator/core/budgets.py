"""What one definition may cost: evaluation time over a window, and how often it may fail
in a row, before its workloads are set aside (quarantined) and retried with backoff.

Pure bookkeeping, driven by the caller's clock: :class:`Budgets` is asked before each
evaluation of a definition (:meth:`Budgets.admit`) and told how it went
(:meth:`Budgets.record`). A definition over budget, or failing ``failures`` times in a row,
is quarantined for ``backoff_first`` seconds (a failure counts when it took long enough to
cost others something); then one evaluation is let through as a
probe: if it succeeds within budget the definition is free again, otherwise the backoff
doubles, up to ``backoff_last``. A changed definition (one not equal to the last for the
same origin) starts with a clean record.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

__all__ = ["Budget", "Budgets", "Quarantine"]


@dataclass(frozen=True)
class Budget:
    """The limits every untrusted definition gets.

    Attributes:
        window_seconds: how far back evaluation time is summed.
        seconds_per_window: evaluation time a definition may spend within the window.
        failures: costly failed evaluations in a row that quarantine a definition.
        costly_failure: how long a failed evaluation must have taken to count towards
            ``failures``: a definition that fails quickly (``error("x")``) costs nobody
            else anything, and its workloads that do evaluate must not be set aside.
        backoff_first: the first quarantine's length, in seconds.
        backoff_last: the longest quarantine (each failed probe doubles it).
        probe_wait: how long other workloads wait while a probe runs, before asking again.
        concurrency: evaluations of one definition at the same time.
    """

    window_seconds: float = 60.0
    seconds_per_window: float = 20.0
    failures: int = 5
    costly_failure: float = 1.0
    backoff_first: float = 30.0
    backoff_last: float = 600.0
    probe_wait: float = 2.0
    concurrency: int = 2


@dataclass(frozen=True)
class Quarantine:
    """Why a definition's workloads are set aside, and for how long.

    Attributes:
        reason: ``OverBudget`` or ``KeepsFailing``.
        message: what was exceeded, for the definition's condition and the Events.
        retry_after: seconds until the caller may ask again.
    """

    reason: str
    message: str
    retry_after: float


@dataclass
class _Record:
    owner: object
    spent: deque[tuple[float, float]] = field(default_factory=deque)  # (ended at, seconds)
    failed_in_a_row: int = 0
    until: float | None = None  # quarantined until then
    backoff: float = 0.0
    why: tuple[str, str] = ("", "")
    probing: bool = False

    def total(self, now: float, window: float) -> float:
        while self.spent and self.spent[0][0] < now - window:
            self.spent.popleft()
        return sum(seconds for _, seconds in self.spent)


class Budgets:
    """The evaluation record of each definition (by origin) and its quarantine."""

    def __init__(self, budget: Budget | None = None) -> None:
        self.budget = budget or Budget()
        self._records: dict[str, _Record] = {}

    def _record(self, origin: str, owner: object) -> _Record:
        found = self._records.get(origin)
        if found is None or found.owner != owner:  # new or changed definition
            found = self._records[origin] = _Record(owner)
        return found

    def admit(self, origin: str, owner: object, now: float) -> Quarantine | None:
        """None when an evaluation of the definition may run now (a probe, if it was
        quarantined), else the quarantine that sets it aside. ``owner`` names the
        definition's version (its generation, or the definition itself): a different one
        for the same origin clears the record."""
        record = self._record(origin, owner)
        if record.until is None:
            return None
        reason, message = record.why
        if now < record.until:
            return Quarantine(reason, message, record.until - now)
        if record.probing:
            return Quarantine(reason, message, self.budget.probe_wait)
        record.probing = True
        return None

    def record(self, origin: str, owner: object, seconds: float, failed: bool, now: float) -> bool:
        """Record one evaluation (its wall time and whether it failed); True when this
        started or ended a quarantine (the definition's condition changes)."""
        budget = self.budget
        record = self._record(origin, owner)
        record.spent.append((now, seconds))
        failed = failed and seconds >= budget.costly_failure
        record.failed_in_a_row = record.failed_in_a_row + 1 if failed else 0
        spent = record.total(now, budget.window_seconds)
        if record.probing:
            record.probing = False
            if not failed and seconds <= budget.seconds_per_window:
                record.until, record.backoff, record.why = None, 0.0, ("", "")
                record.spent.clear()
                return True
            record.backoff = min(2 * record.backoff, budget.backoff_last)
            record.until = now + record.backoff
            return False
        if record.until is not None:
            return False  # an evaluation admitted before the quarantine began
        if spent > budget.seconds_per_window:
            record.why = (
                "OverBudget",
                f"its evaluations took {spent:.1f} s in the last {budget.window_seconds:g} s "
                f"(budget {budget.seconds_per_window:g} s)",
            )
        elif record.failed_in_a_row >= budget.failures:
            record.why = (
                "KeepsFailing",
                f"its last {record.failed_in_a_row} evaluations failed",
            )
        else:
            return False
        record.backoff = budget.backoff_first
        record.until = now + record.backoff
        return True

    def quarantined(self, origin: str) -> Quarantine | None:
        """The definition's quarantine, if it is in one (for its condition)."""
        record = self._records.get(origin)
        if record is None or record.until is None:
            return None
        reason, message = record.why
        return Quarantine(reason, message, record.backoff)

    def forget(self, origin: str) -> None:
        """Drop a deleted definition's record."""
        self._records.pop(origin, None)
