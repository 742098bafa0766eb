"""Which changes of a gang object are someone else's (and bring its workload back)."""

from __future__ import annotations

from wlmap.operator.drift import changed_by_others


def _fields(*entries: dict[str, str]) -> dict[str, object]:
    return {"metadata": {"managedFields": list(entries)}}


def test_the_operators_own_apply_and_the_schedulers_status_are_not_drift() -> None:
    ours = {"manager": "wlmap-operator", "operation": "Apply"}
    status = {"manager": "kai-scheduler", "operation": "Update", "subresource": "status"}
    assert not changed_by_others(_fields(ours, status))
    assert not changed_by_others({"metadata": {}})


def test_an_edit_by_anyone_else_is_drift() -> None:
    ours = {"manager": "wlmap-operator", "operation": "Apply"}
    edit = {"manager": "kubectl-edit", "operation": "Update"}
    assert changed_by_others(_fields(ours, edit))
