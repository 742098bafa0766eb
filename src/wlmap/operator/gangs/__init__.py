"""Gang sync: the gang objects and pod links each mapped workload wants, written, kept
and checked for drift."""

from __future__ import annotations

from wlmap.operator.gangs.cache import OperatorCache, has_unlinked_pods, operator_cache
from wlmap.operator.gangs.drift import gang_handler, gang_listener, sweep
from wlmap.operator.gangs.reconcile import Interpreted, Outcome, forget, reconcile
from wlmap.operator.gangs.sweeps import Sweeps

__all__ = [
    "Interpreted",
    "OperatorCache",
    "Outcome",
    "Sweeps",
    "forget",
    "gang_handler",
    "gang_listener",
    "has_unlinked_pods",
    "operator_cache",
    "reconcile",
    "sweep",
]
