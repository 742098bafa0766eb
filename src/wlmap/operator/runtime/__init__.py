"""The operator's runtime: kopf wiring and handlers, leadership, login, the steps that
reconcile and place a workload, and the state the rooms share."""

from __future__ import annotations

from wlmap.operator.runtime.handlers import register
from wlmap.operator.runtime.leader import LeaderElection
from wlmap.operator.runtime.state import State
from wlmap.operator.runtime.steps import answer_events, reconcile_step

__all__ = ["LeaderElection", "State", "answer_events", "reconcile_step", "register"]
