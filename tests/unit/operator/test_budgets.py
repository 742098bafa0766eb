"""A definition's budget: time over a window and failures in a row quarantine it; a probe
after the backoff frees it or doubles the backoff; a changed definition starts clean."""

from __future__ import annotations

from wlmap.operator.core.budgets import Budget, Budgets

BUDGET = Budget(
    window_seconds=60, seconds_per_window=10, failures=3, backoff_first=30, backoff_last=100
)
ORIGIN = "cluster:WorkloadMap/slow"


def test_time_within_budget_is_admitted() -> None:
    budgets, definition = Budgets(BUDGET), object()
    for second in range(0, 50, 10):
        assert budgets.admit(ORIGIN, definition, second) is None
        assert not budgets.record(ORIGIN, definition, 1.5, False, second + 1.5)
    assert budgets.quarantined(ORIGIN) is None


def test_over_budget_quarantines_until_the_backoff_ends() -> None:
    budgets, definition = Budgets(BUDGET), object()
    changed = [budgets.record(ORIGIN, definition, 4.0, False, t) for t in (4.0, 8.0, 12.0)]
    assert changed == [False, False, True]  # 12 s spent within 60 s: over 10
    held = budgets.admit(ORIGIN, definition, 13.0)
    assert held is not None and held.reason == "OverBudget"
    assert "12.0 s" in held.message and held.retry_after == 29.0
    assert budgets.admit(ORIGIN, definition, 41.0) is not None
    # the backoff is over: one probe goes through, the others wait for its result
    assert budgets.admit(ORIGIN, definition, 43.0) is None
    waiting = budgets.admit(ORIGIN, definition, 43.5)
    assert waiting is not None and waiting.retry_after == BUDGET.probe_wait
    assert budgets.record(ORIGIN, definition, 0.2, False, 43.7)  # a clean probe frees it
    assert budgets.admit(ORIGIN, definition, 44.0) is None
    assert budgets.quarantined(ORIGIN) is None


def test_old_evaluations_leave_the_window() -> None:
    budgets, definition = Budgets(BUDGET), object()
    for t in (10.0, 80.0, 150.0, 220.0):  # 6 s each, never two within 60 s
        assert not budgets.record(ORIGIN, definition, 6.0, False, t)
    assert budgets.admit(ORIGIN, definition, 221.0) is None


def test_costly_failures_in_a_row_quarantine_and_a_success_resets_the_count() -> None:
    budgets, definition = Budgets(BUDGET), object()
    assert not budgets.record(ORIGIN, definition, 1.2, True, 100.0)
    assert not budgets.record(ORIGIN, definition, 1.2, True, 200.0)
    assert not budgets.record(ORIGIN, definition, 1.2, False, 300.0)
    assert not budgets.record(ORIGIN, definition, 1.2, True, 400.0)
    assert not budgets.record(ORIGIN, definition, 1.2, True, 500.0)
    assert budgets.record(ORIGIN, definition, 1.2, True, 600.0)
    held = budgets.admit(ORIGIN, definition, 601.0)
    assert held is not None and held.reason == "KeepsFailing"
    assert "3 evaluations failed" in held.message


def test_quick_failures_never_quarantine() -> None:
    budgets, definition = Budgets(BUDGET), object()
    for t in range(1, 50):
        assert not budgets.record(ORIGIN, definition, 0.01, True, float(t))
    assert budgets.admit(ORIGIN, definition, 50.0) is None


def test_a_failed_probe_doubles_the_backoff_up_to_the_last() -> None:
    budgets, definition = Budgets(BUDGET), object()
    now = 0.0
    for _ in range(3):
        now += 1.2
        budgets.record(ORIGIN, definition, 1.2, True, now)
    waits = []
    for _ in range(4):
        held = budgets.admit(ORIGIN, definition, now)
        assert held is not None
        waits.append(held.retry_after)
        now += held.retry_after
        assert budgets.admit(ORIGIN, definition, now) is None  # the probe
        assert not budgets.record(ORIGIN, definition, 2.5, True, now + 2.5)
        now += 2.5
    assert [round(w) for w in waits] == [30, 60, 100, 100]


def test_a_changed_definition_starts_with_a_clean_record() -> None:
    budgets, old, new = Budgets(BUDGET), object(), object()
    budgets.record(ORIGIN, old, 11.0, False, 11.0)
    assert budgets.admit(ORIGIN, old, 12.0) is not None
    assert budgets.admit(ORIGIN, new, 12.0) is None
    assert budgets.quarantined(ORIGIN) is None


def test_an_equal_definition_read_again_keeps_the_record() -> None:
    budgets = Budgets(BUDGET)
    budgets.record(ORIGIN, {"name": "slow", "generation": 1}, 11.0, False, 11.0)
    assert budgets.admit(ORIGIN, {"name": "slow", "generation": 1}, 12.0) is not None


def test_definitions_are_budgeted_apart() -> None:
    budgets, slow, other = Budgets(BUDGET), object(), object()
    budgets.record(ORIGIN, slow, 11.0, False, 11.0)
    assert budgets.admit(ORIGIN, slow, 12.0) is not None
    assert budgets.admit("cluster:WorkloadMap/other", other, 12.0) is None
