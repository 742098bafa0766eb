"""Baseline gang policies: what the schedulers people use would do with the same gang.

Each is a :class:`~wlmap.placement.gangs.gang_policy.GangPolicy`: all-or-nothing, never
outside the gang's required level, slices whole, deterministic (Random given its seed).
Each module's docstring states its rule and the upstream source it follows.

:data:`BASELINES` maps the names the CLI and result files use to factories; ``random``
takes a ``seed`` keyword and ``volcano`` a ``fading`` one (0.8 by default), the others
take none.
"""

from __future__ import annotations

from collections.abc import Callable

from wlmap.placement.gangs.baselines.kai import KaiPolicy
from wlmap.placement.gangs.baselines.kube_fit import (
    NodeResourcesFitPolicy,
    least_allocated,
    most_allocated,
)
from wlmap.placement.gangs.baselines.kueue import (
    KueuePolicy,
    kueue_balanced,
    kueue_best_fit,
    kueue_least_free,
)
from wlmap.placement.gangs.baselines.random_fit import RandomGangPolicy
from wlmap.placement.gangs.baselines.slurm_block import SlurmBlockPolicy
from wlmap.placement.gangs.baselines.volcano import VolcanoPolicy
from wlmap.placement.gangs.gang_policy import GangPolicy

__all__ = [
    "BASELINES",
    "KaiPolicy",
    "KueuePolicy",
    "NodeResourcesFitPolicy",
    "RandomGangPolicy",
    "SlurmBlockPolicy",
    "VolcanoPolicy",
]

BASELINES: dict[str, Callable[..., GangPolicy]] = {
    "random": RandomGangPolicy,
    "least-allocated": least_allocated,
    "most-allocated": most_allocated,
    "kueue-bestfit": kueue_best_fit,
    "kueue-least-free": kueue_least_free,
    "kueue-balanced": kueue_balanced,
    "kai": KaiPolicy,
    "volcano": VolcanoPolicy,
    "slurm-block": SlurmBlockPolicy,
}
"""Baseline gang policies by name, in the order reports list them."""
