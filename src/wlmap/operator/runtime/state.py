"""The operator's whole state: what the rooms share, the placement controller's own, and
the runtime's (what was reported, the workloads as last reconciled, the rechecks planned
and the counters); the handlers hold one and hand each room its part."""

from __future__ import annotations

from dataclasses import dataclass, field

from wlmap.operator.core.evaluations import Evaluations
from wlmap.operator.core.reports import Reports
from wlmap.operator.placing.state import PlacingState
from wlmap.operator.runtime.leader import LeaderElection
from wlmap.operator.runtime.metrics import OperatorMetrics
from wlmap.operator.runtime.read_keys import ReadKeys

__all__ = ["State"]


@dataclass
class State(PlacingState):
    """What the handlers share: every room's state and the runtime's counters."""

    leader: LeaderElection | None = None  # the runtime's own election (rooms see a Lease)
    reports: Reports = field(default_factory=Reports)
    read_keys: ReadKeys = field(default_factory=ReadKeys)  # workloads as last reconciled
    waiting: dict[str, float] = field(default_factory=dict)  # uid: last delay before a recheck
    rechecks: set[str] = field(default_factory=set)  # uids with a recheck planned
    kinds: set[tuple[str, str]] = field(default_factory=set)
    skipped: int = 0  # workload events that changed nothing a reconciliation reads
    # untrusted definitions' lanes, threads and budgets
    evaluations: Evaluations = field(default_factory=Evaluations)
    metrics: OperatorMetrics | None = None  # with --metrics-port
