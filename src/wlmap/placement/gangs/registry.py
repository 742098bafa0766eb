"""The gang policies by name, as the CLI and the benchmarks ask for them.

This module only gathers: each family of policies lives in its own package and exports
its factories, and :func:`_gather` is the one place that adds them here. A factory takes
keyword arguments it declares among ``seed`` (random policies), ``weights`` (the
scenario's tier weights) and ``objective`` (an objective file, for policies that read one)
and returns a :class:`GangPolicy`; :func:`make_gang_policy` passes only the ones a factory
declares.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from wlmap.placement.gangs.baselines import BASELINES
from wlmap.placement.gangs.gang_policy import GangPolicy
from wlmap.placement.gangs.objective import make_wlmap_gang_policy
from wlmap.placement.gangs.quality import TierWeights

__all__ = ["GANG_POLICIES", "make_gang_policy"]

GangPolicyFactory = Callable[..., GangPolicy]


def _gather() -> dict[str, GangPolicyFactory]:
    policies: dict[str, GangPolicyFactory] = {}
    # The policy families join here, baselines first, then wlmap's own (its factory reads
    # the default objective when given none).
    policies.update(BASELINES)
    policies["wlmap"] = make_wlmap_gang_policy
    return policies


GANG_POLICIES: dict[str, GangPolicyFactory] = _gather()


def make_gang_policy(
    name: str,
    *,
    seed: int = 0,
    weights: TierWeights | None = None,
    objective: str | None = None,
    registry: dict[str, GangPolicyFactory] | None = None,
) -> GangPolicy:
    """A fresh policy by name; ``objective`` goes only to a factory that takes one.

    Raises:
        KeyError: no policy has that name (the message lists the known names).
    """
    known = GANG_POLICIES if registry is None else registry
    if name not in known:
        names = ", ".join(known) or "none on this build"
        raise KeyError(f"unknown gang policy {name!r}; expected one of: {names}")
    factory = known[name]
    offered: dict[str, Any] = {"seed": seed, "weights": weights}
    if objective is not None:
        offered["objective"] = objective
    try:
        accepted = inspect.signature(factory).parameters
    except (TypeError, ValueError):  # a builtin or C callable: give it nothing
        return factory()
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in accepted.values()):
        return factory(**offered)
    return factory(**{k: v for k, v in offered.items() if k in accepted})
