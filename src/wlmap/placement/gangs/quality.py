"""How well a gang's placement keeps its pods together, measured per level.

For a gang of ``n`` pods with ``n_d`` pods in domain ``d`` of level ``l``:

- span ``S_l``: how many level-``l`` domains hold its pods;
- locality ``L_l``: the largest share of its pods in one level-``l`` domain (1.0 is best);
- leakage ``X_l``: the share of pod pairs that cross a level-``l`` boundary,
  ``1 - sum(n_d (n_d - 1)) / (n (n - 1))``;
- communication cost ``C``: the mean over pod pairs of the weight of the finest domain the
  two pods share (same node, same rack, ..., none). Pairs whose finest shared domain is at
  level ``l`` are the pairs inside level-``l`` domains minus those inside level ``l + 1``,
  so the cost needs only the per-domain counts, never the pairs themselves.

The weights are a parameter. :func:`default_weights` follows the bandwidth ratios of a GPU
fabric (NVLink about 1.8 TB/s against 50 GB/s between racks): 1 inside the finest level,
then 10, 36 and 72 going up, 0 on one node.
"""

from __future__ import annotations

from dataclasses import dataclass

from wlmap.placement.gangs.gang import GangPlacement
from wlmap.placement.gangs.tree import Topology

__all__ = ["GangQuality", "TierWeights", "default_weights", "measure"]

_FABRIC = (1.0, 10.0, 36.0, 72.0)


@dataclass(frozen=True, slots=True)
class TierWeights:
    """The cost of a pod pair by the finest domain the two pods share.

    Attributes:
        across: the pair shares no domain, even at the coarsest level.
        levels: per level, coarsest first: the pair shares a domain of this level, and no
            finer one.
        node: the two pods are on one node.
    """

    across: float
    levels: tuple[float, ...]
    node: float = 0.0


def default_weights(level_count: int) -> TierWeights:
    """Fabric weights for a topology of ``level_count`` levels: 1, 10, 36, 72 from the finest up."""
    ladder = [_FABRIC[min(i, len(_FABRIC) - 1)] for i in range(level_count + 1)]
    return TierWeights(across=ladder[level_count], levels=tuple(reversed(ladder[:level_count])))


@dataclass(frozen=True, slots=True)
class GangQuality:
    """One placement's locality figures, per level coarsest first (the node level last).

    Attributes:
        span: domains used per level.
        locality: largest share of pods in one domain, per level.
        leakage: share of pod pairs crossing a boundary of the level, per level.
        cost: mean pair weight under the weights it was measured with.
    """

    span: tuple[int, ...]
    locality: tuple[float, ...]
    leakage: tuple[float, ...]
    cost: float


def _pairs(count: int) -> int:
    return count * (count - 1) // 2


def measure(placement: GangPlacement, topology: Topology, weights: TierWeights) -> GangQuality:
    """The span, locality, leakage and communication cost of ``placement``."""
    if len(weights.levels) != len(topology.levels):
        raise ValueError(
            f"weights name {len(weights.levels)} levels, the topology has {len(topology.levels)}"
        )
    total = sum(pods for _, pods in placement.nodes)
    all_pairs = _pairs(total)
    span: list[int] = []
    locality: list[float] = []
    leakage: list[float] = []
    inside: list[int] = []
    for level in range(len(topology.levels) + 1):
        counts = placement.domain_counts(topology, level).values()
        pairs = sum(_pairs(c) for c in counts)
        span.append(len(counts))
        locality.append(max(counts) / total if total else 1.0)
        leakage.append(1.0 - pairs / all_pairs if all_pairs else 0.0)
        inside.append(pairs)
    if not all_pairs:
        return GangQuality(tuple(span), tuple(locality), tuple(leakage), 0.0)
    tiers = (*weights.levels, weights.node)
    weighted = weights.across * (all_pairs - inside[0])
    for level, weight in enumerate(tiers):
        finer = inside[level + 1] if level + 1 < len(inside) else 0
        weighted += weight * (inside[level] - finer)
    return GangQuality(tuple(span), tuple(locality), tuple(leakage), weighted / all_pairs)
