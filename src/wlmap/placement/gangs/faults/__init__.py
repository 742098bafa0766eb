"""Node faults and how gangs recover from them, simulated over a day of a busy cluster.

- :mod:`.fault_draws`: seeded fault draws (node MTBF with stress, correlated domain failures,
  single-GPU losses, detection delay, repair time);
- :mod:`.reactions`: Kueue hot swap, KAI stale-gang eviction, restart from scratch, a spare
  pool, and wlmap's minimal-movement re-placement;
- :mod:`.spares`: nodes held idle for replacements;
- :mod:`.recovery_loop`: the event loop and its measurements;
- :mod:`.verify`: independent checks of constraints and GPU accounting.

Gangs come from the SYNTHETIC mix of :mod:`wlmap.placement.gangs.jobmix` and are placed
by any registered :class:`~wlmap.placement.gangs.gang_policy.GangPolicy`; each reaction
names the policy its scheduler uses (:attr:`Reaction.policy`).
"""

from __future__ import annotations

from wlmap.placement.gangs.faults._accounting import Record
from wlmap.placement.gangs.faults.fault_draws import (
    Fault,
    FaultKind,
    FaultModel,
    draw_faults,
    expected_faults,
)
from wlmap.placement.gangs.faults.reactions import (
    KaiStaleGangEviction,
    KueueHotSwap,
    Reaction,
    Recovery,
    RecoveryKind,
    RestartFromScratch,
    SparePoolSwap,
    WlmapReplacement,
)
from wlmap.placement.gangs.faults.recovery_loop import (
    RecoveryParams,
    RecoveryRun,
    simulate_recovery,
)
from wlmap.placement.gangs.faults.spares import SparePool
from wlmap.placement.gangs.faults.verify import accounting_problems, constraint_problems

__all__ = [
    "Fault",
    "FaultKind",
    "FaultModel",
    "KaiStaleGangEviction",
    "KueueHotSwap",
    "Reaction",
    "Record",
    "Recovery",
    "RecoveryKind",
    "RecoveryParams",
    "RecoveryRun",
    "RestartFromScratch",
    "SparePool",
    "SparePoolSwap",
    "WlmapReplacement",
    "accounting_problems",
    "constraint_problems",
    "draw_faults",
    "expected_faults",
    "simulate_recovery",
]
