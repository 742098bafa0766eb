"""Which changes of a gang object are someone else's (and bring its workload back), as
kopf's events or the gang cache's watches report them."""

from __future__ import annotations

from collections.abc import Coroutine
from typing import Any

from wlmap.operator.core.settings import WORKLOAD_UID_LABEL, Settings
from wlmap.operator.gangs.drift import changed_by_others, gang_listener
from wlmap.operator.runtime.state import State
from wlmap.sources.cluster import Discovery
from wlmap.sources.cluster.discovery import ApiResource

GROUP = ApiResource("scheduling.run.ai", "v2alpha2", "PodGroup", "podgroups", "podgroup", True)


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


class _Recording(State):
    """The operator's state with its spawned checks recorded, not run."""

    checks: list[Coroutine[Any, Any, None]]

    def spawn(self, step: Coroutine[Any, Any, None]) -> None:
        self.checks.append(step)
        step.close()


def _state() -> _Recording:
    state = _Recording(Settings(target="kai", namespaces=("team",)))
    state.checks = []
    state.discovery = Discovery((GROUP,))
    return state


def _group(*managers: dict[str, str], namespace: str = "team") -> dict[str, Any]:
    return {
        "apiVersion": GROUP.api_version,
        "kind": "PodGroup",
        "metadata": {
            "name": "pg",
            "namespace": namespace,
            "labels": {WORKLOAD_UID_LABEL: "a"},
            "managedFields": list(managers),
        },
    }


def test_the_gang_cache_brings_deletions_and_others_edits_back_not_its_own_writes() -> None:
    state = _state()
    ours = {"manager": "wlmap-operator", "operation": "Apply"}
    edit = {"manager": "kubectl-edit", "operation": "Update"}
    listener = gang_listener(state)
    listener("ADDED", _group(ours))
    listener("MODIFIED", _group(ours))
    assert state.checks == []  # the operator's own writes, seen back
    listener("MODIFIED", _group(ours, edit))
    assert len(state.checks) == 1
    listener("MODIFIED", _group(ours, edit, namespace="elsewhere"))  # not served
    assert len(state.checks) == 1
    # deleted: checked, and no longer remembered as written (its workload applies it again)
    path = GROUP.path("team", "pg")
    state.written.applied(path, "{}", {**_group(ours), "metadata": {"resourceVersion": "7"}})
    assert not state.written.needs_apply(path, "{}", {"metadata": {"resourceVersion": "7"}})
    listener("DELETED", _group(ours))
    assert len(state.checks) == 2
    assert state.written.needs_apply(path, "{}", {"metadata": {"resourceVersion": "7"}})
