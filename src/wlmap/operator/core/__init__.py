"""What every room of the operator reads: its settings and scope, the definitions in use,
the work queue, conditions and reports, and the writes not seen back yet."""

from __future__ import annotations

from wlmap.operator.core.events import Events, ReconcileWanted
from wlmap.operator.core.gate import GATE, is_gated
from wlmap.operator.core.owners import complete_chain
from wlmap.operator.core.settings import SYNC_TARGETS, Settings
from wlmap.operator.core.shared import Lease, Shared
from wlmap.operator.core.store import DefinitionStore
from wlmap.operator.core.work import is_mapped, retrying, submit
from wlmap.operator.core.written import Written

__all__ = [
    "GATE",
    "SYNC_TARGETS",
    "DefinitionStore",
    "Events",
    "Lease",
    "ReconcileWanted",
    "Settings",
    "Shared",
    "Written",
    "complete_chain",
    "is_gated",
    "is_mapped",
    "retrying",
    "submit",
]
