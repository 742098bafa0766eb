"""The operator's metrics name the placement controller's reason for a gang it holds
back, in place of the reason its pods give, and only while it holds it back."""

from __future__ import annotations

from typing import Any

from tests.unit.metrics.cluster import T0, job, pod
from tests.unit.metrics.exposition import values
from wlmap.app import DefinitionSet
from wlmap.operator.core.settings import Settings
from wlmap.operator.placing import PlacingState, waiting_reason
from wlmap.operator.runtime.metrics import OperatorMetrics
from wlmap.sources.manifests import Manifest
from wlmap.sources.workloads import WorkloadReader


def _reasons(waiting: str | None) -> set[str]:
    """The waiting reasons the operator serves for the example PyTorchJob, two of whose
    four pods the scheduler left unbound, given the placement controller's ``waiting``."""
    owner = job()
    unbound: dict[str, Any] = {"node": None, "start": None, "waiting": ("Unschedulable", T0)}
    pods = [
        pod(owner, "master", 0),
        pod(owner, "worker", 0),
        pod(owner, "worker", 1, **unbound),
        pod(owner, "worker", 2, **unbound),
    ]
    registry = DefinitionSet(()).merge().registry
    reader = WorkloadReader(registry, [Manifest(o, "test") for o in (owner, *pods)])
    entry = reader.entry(owner)
    assert entry is not None
    metrics = OperatorMetrics(Settings())
    metrics.index.synced = True
    view = reader.view(entry, owner)
    metrics.reconciled(owner, view, tuple(pods), "builtin", False, waiting_reason=waiting)
    text = metrics.index.render(now=T0 + 60)
    return {dict(k)["reason"] for k in values(text, "wlmap_workload_gang_waiting_reason")}


def test_the_placement_controllers_reason_is_served_for_a_waiting_gang() -> None:
    assert _reasons("DoesNotFit") == {"DoesNotFit"}
    assert _reasons(None) == {"Unschedulable"}  # what the pods say, without a plan's word


def test_the_reason_is_the_placement_conditions_while_it_holds_the_gang_back() -> None:
    state = PlacingState(Settings())
    obj = job()
    assert waiting_reason(state, obj) is None  # placement never looked at it
    state.placement_said["job-1"] = (False, "DoesNotFit", "needs 8 GPUs in one rack", False)
    assert waiting_reason(state, obj) == "DoesNotFit"
    state.placement_said["job-1"] = (True, "Placed", "on rack-1", False)
    assert waiting_reason(state, obj) is None
