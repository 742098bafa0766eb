"""What a scheduler does once it notices that a running gang lost pods to a fault.

Each reaction is an object with a ``name``, a ``grace_s`` (seconds it waits after the
detection before acting), the ``policy`` its scheduler places gangs with (a name of
``topology.registry``: Kueue's BestFit for the hot swap, KAI's own placement for its
eviction, wlmap's objective for wlmap's reaction, so each scheduler is simulated end to
end as it behaves) and ``recover``, which never changes the capacity it is given
(it may release and re-take the survivors' GPUs to ask the policy a question, and leaves
them as they were). The simulator applies the :class:`Recovery` it returns.

- :class:`KueueHotSwap`: Kueue TAS ``TASFailedNodeReplacement`` with ``...FailFast``
  (keps/2724-topology-aware-scheduling, "Node failures"): only a single failed node is
  replaced, by one node in the same domain of the gang's required level (else its
  preferred level, else anywhere) that takes all of that node's pods, changing the
  assignment of the affected pods only; the tightest such node, as BestFit tightens its
  last domain. Otherwise, one attempt, then the workload is evicted and requeued.
- :class:`KaiStaleGangEviction`: KAI's ``stalegangeviction`` action tears down a gang that
  stayed below ``minMember`` for the staleness grace period (60 s by default) and the gang
  is then placed afresh as a whole.
- :class:`RestartFromScratch`: evict the gang at detection, place it anew.
- :class:`SparePoolSwap`: the lost pods move to spare nodes (see :mod:`.spares`), nearest
  tier first; without enough spares, restart from scratch.
- :class:`WlmapReplacement`: minimal movement. Only the lost pods move, to the finest
  domains holding the gang's survivors, then up the tree up to its required domain (the whole
  cluster without one; see :mod:`._moves`), spare capacity first, and inside a tier the
  node whose pod gains most cheap links to the gang (its policy's pair weights). A sliced gang whose
  slice domain has no room moves whole slices to the nearest slice domains with room,
  taking along only the survivors of a slice the fault cut (:mod:`._cut_slices`). Only when that
  fails is the gang re-placed whole (spare GPUs visible); a gang that lost every pod is
  placed by its policy at once (all its pods move in any case). When even that fails, the gang is
  not evicted: its healthy pods keep their GPUs and it waits for room for the lost pods
  only, asked again ahead of the queue each time GPUs free up (``hold``), unless its domain
  could not hold it even empty (:func:`._moves.could_return`); then, or without ``hold``,
  it is requeued whole, as the schedulers do. With
  ``keep_domain`` (``wlmap-local``) the lost pods of a gang without a required level stay
  in the smallest domain that held the whole gang, and the gang is re-placed whole (which
  keeps its locality, at the price of evicting its healthy pods) before they may go
  further.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Protocol

from wlmap.placement.gangs.capacity import FreeCapacity
from wlmap.placement.gangs.faults import _moves
from wlmap.placement.gangs.faults._cut_slices import slice_moves
from wlmap.placement.gangs.faults.spares import SparePool
from wlmap.placement.gangs.gang import GangPlacement
from wlmap.placement.gangs.gang_policy import GangPolicy, apply, release
from wlmap.placement.gangs.quality import TierWeights, default_weights

__all__ = [
    "KaiStaleGangEviction",
    "KueueHotSwap",
    "Reaction",
    "Recovery",
    "RecoveryKind",
    "RestartFromScratch",
    "SparePoolSwap",
    "WlmapReplacement",
]

Pairs = tuple[tuple[int, int], ...]
RecoveryKind = Literal["swap", "replace", "requeue", "wait"]


@dataclass(frozen=True, slots=True)
class Recovery:
    """A reaction's answer for one gang.

    Attributes:
        kind: ``swap`` (only the lost pods moved), ``replace`` (the gang was evicted and
            placed anew at once), ``requeue`` (evicted; it waits for room) or ``wait``
            (nothing moved: the healthy pods keep their GPUs and the reaction is asked
            again each time GPUs free up).
        placement: the gang's whole new placement; None for ``requeue``.
        moves: for ``swap``, the (node, pods) the lost pods go to.
        lend: spare GPUs to free before the moves are taken, as (node, GPUs).
        evicted: healthy pods of the gang stopped by the reaction (collateral).
        freed: for ``swap``, the (node, pods) of healthy pods evicted to move with the lost
            ones (the rest of a slice the fault cut); their GPUs are freed first.
    """

    kind: RecoveryKind
    placement: GangPlacement | None
    moves: Pairs = ()
    lend: Pairs = ()
    evicted: int = 0
    freed: Pairs = ()


class Reaction(Protocol):
    """A rule for recovering a gang that lost pods.

    Attributes:
        name: the reaction's name in reports.
        grace_s: seconds after detection before the reaction acts.
        spare_percent: share of nodes per domain to hold as spares (0 for none).
        policy: the registered gang policy (``topology.registry``) the scheduler behind
            this reaction places gangs with, arrivals and re-placements alike.
    """

    name: str
    grace_s: float
    spare_percent: float
    policy: str

    def recover(
        self,
        capacity: FreeCapacity,
        survivors: GangPlacement,
        lost: Pairs,
        policy: GangPolicy,
        spares: SparePool | None,
    ) -> Recovery:
        """How to recover the gang whose healthy pods are ``survivors``; ``lost`` are gone."""
        ...


def _pods(pairs: Pairs) -> int:
    return sum(p for _, p in pairs)


def _merge(survivors: GangPlacement, moves: Pairs, reason: str, freed: Pairs = ()) -> GangPlacement:
    counts = dict(survivors.nodes)
    for node, pods in freed:
        counts[node] -= pods
    counts = {n: p for n, p in counts.items() if p}
    for node, pods in moves:
        counts[node] = counts.get(node, 0) + pods
    return GangPlacement(survivors.gang, tuple(sorted(counts.items())), reason)


def replace_whole(
    capacity: FreeCapacity,
    survivors: GangPlacement,
    policy: GangPolicy,
    spares: SparePool | None = None,
) -> Recovery:
    """Evict the survivors and ask ``policy`` for a fresh placement of the whole gang.

    With ``spares``, the GPUs they hold are visible to the policy for this one question.
    """
    release(capacity, survivors)
    shown = {n: h for n, h in spares.held.items() if h} if spares is not None else {}
    for node, held in shown.items():
        capacity.give(node, held)
    try:
        found = policy.place(capacity, survivors.gang)
    finally:
        for node, held in shown.items():
            capacity.take(node, held)
        apply(capacity, survivors)
    evicted = _pods(survivors.nodes)
    if found is None:
        return Recovery("requeue", None, evicted=evicted)
    mine = dict(survivors.nodes)
    per_pod = survivors.gang.gpus_per_pod
    lend = tuple(
        (node, short)
        for node, pods in found.nodes
        if node in shown
        and (short := pods * per_pod - int(capacity.node_free[node]) - mine.get(node, 0) * per_pod)
        > 0
    )
    return Recovery("replace", found, lend=lend, evicted=evicted)


def _swap(
    capacity: FreeCapacity,
    survivors: GangPlacement,
    moves: dict[int, int],
    spares: SparePool | None,
    why: str,
    freed: dict[int, int] | None = None,
) -> Recovery:
    pairs = tuple(sorted(moves.items()))
    out = tuple(sorted((freed or {}).items()))
    lend = _moves.borrowed(capacity, survivors.gang, pairs, spares)
    placement = _merge(survivors, pairs, why, out)
    return Recovery("swap", placement, pairs, lend, sum(p for _, p in out), out)


class KueueHotSwap:
    """Kueue TAS: one replacement node in the same domain, else evict and requeue."""

    name = "kueue-hot-swap"
    grace_s = 0.0
    spare_percent = 0.0
    policy = "kueue-bestfit"

    def recover(
        self,
        capacity: FreeCapacity,
        survivors: GangPlacement,
        lost: Pairs,
        policy: GangPolicy,
        spares: SparePool | None,
    ) -> Recovery:
        """Replace a single failed node by the tightest node of its domain with room."""
        gang = survivors.gang
        evict = Recovery("requeue", None, evicted=_pods(survivors.nodes))
        if len(lost) != 1:
            return evict
        failed, pods = lost[0]
        topology = capacity.topology
        level = gang.required_level if gang.required_level is not None else gang.preferred_level
        if gang.slice_size and gang.slice_level is not None:
            level = max(level if level is not None else -1, gang.slice_level)
        if level is None or level < 0:
            members = range(len(topology.nodes))
        elif level == len(topology.levels):
            members = range(failed, failed + 1)
        else:
            members = topology.members[level][int(topology.node_domain[level][failed])].tolist()
        fits = [
            (free, node)
            for node in members
            if (free := _moves.room(capacity, node, gang, None)) >= pods
        ]
        if not fits:
            return evict
        _, node = min(fits)
        return _swap(capacity, survivors, {node: pods}, None, "hot swap of one node")


class RestartFromScratch:
    """Evict the gang as soon as the fault is detected and place it anew."""

    name = "restart"
    grace_s = 0.0
    spare_percent = 0.0

    def __init__(self, policy: str = "wlmap") -> None:
        self.policy = policy

    def recover(
        self,
        capacity: FreeCapacity,
        survivors: GangPlacement,
        lost: Pairs,
        policy: GangPolicy,
        spares: SparePool | None,
    ) -> Recovery:
        """Evict the whole gang and place it anew with the placement policy."""
        return replace_whole(capacity, survivors, policy)


class KaiStaleGangEviction(RestartFromScratch):
    """KAI: after the staleness grace below minMember, evict the gang and place it afresh."""

    name = "kai-stale-gang"

    def __init__(self, grace_s: float = 60.0) -> None:
        super().__init__("kai")
        self.grace_s = grace_s


def _tiered(
    capacity: FreeCapacity,
    survivors: GangPlacement,
    lost: Pairs,
    spares: SparePool | None,
    only_spares: bool,
    top: int | None = None,
    weights: TierWeights | None = None,
) -> dict[int, int] | None:
    gang = survivors.gang
    before = (*survivors.nodes, *lost)
    holding = {n for n, _ in survivors.nodes}
    moves: dict[int, int] = {}
    pull = None if weights is None else _moves.Pull(capacity, survivors.nodes, weights)
    # With a pull (wlmap), the domains nearest the survivors come first: the lost pods' old
    # rack may be far from where the rest of a split gang runs on.
    near = survivors.nodes if pull is not None and survivors.nodes else before
    for failed, pods in lost:
        candidates = _moves.tiers(capacity, gang, near, failed, top)
        if only_spares:
            assert spares is not None
            candidates = [[n for n in tier if spares.is_spare(n)] for tier in candidates]
        if _moves.fill(capacity, gang, pods, candidates, holding, spares, moves, pull):
            return None
    return moves


class SparePoolSwap:
    """Move the lost pods onto spare nodes, nearest first; else restart from scratch."""

    grace_s = 0.0

    def __init__(self, percent: float, policy: str = "wlmap") -> None:
        self.spare_percent = percent
        self.policy = policy
        self.name = f"spare-pool-{percent:g}%"

    def recover(
        self,
        capacity: FreeCapacity,
        survivors: GangPlacement,
        lost: Pairs,
        policy: GangPolicy,
        spares: SparePool | None,
    ) -> Recovery:
        """Use spare nodes for the lost pods, or evict and place the gang anew."""
        if spares is not None:
            moves = _tiered(capacity, survivors, lost, spares, only_spares=True)
            if moves is not None:
                return _swap(capacity, survivors, moves, spares, "moved to spare nodes")
        return replace_whole(capacity, survivors, policy, spares)


def _weights(policy: GangPolicy, capacity: FreeCapacity) -> TierWeights:
    """The pair weights ``policy`` places with (wlmap's objective has them), else the
    fabric defaults."""
    weights = getattr(policy, "weights", None)
    if isinstance(weights, TierWeights):
        return weights
    return default_weights(len(capacity.topology.levels))


class WlmapReplacement:
    """Minimal movement inside the gang's domains first; whole re-placement last."""

    grace_s = 0.0

    def __init__(
        self, spare_percent: float = 0.0, keep_domain: bool = False, hold: bool = True
    ) -> None:
        self.spare_percent = spare_percent
        self.keep_domain = keep_domain
        self.hold = hold
        self.policy = "wlmap"
        self.name = "wlmap-local" if keep_domain else "wlmap"
        if spare_percent:
            self.name += f"+spare-{spare_percent:g}%"

    def recover(
        self,
        capacity: FreeCapacity,
        survivors: GangPlacement,
        lost: Pairs,
        policy: GangPolicy,
        spares: SparePool | None,
    ) -> Recovery:
        """Move the lost pods inside the gang's domain, else re-place it, else move further."""
        before = (*survivors.nodes, *lost)
        gang = survivors.gang
        if not survivors.nodes:
            # every pod was lost: all of them move whichever way, so the policy's own
            # placement (its objective) beats filling nodes tier by tier
            return replace_whole(capacity, survivors, policy, spares)
        inside = _moves.ceiling(gang)
        if self.keep_domain and gang.required_level is None:
            inside = max(inside, _moves.enclosing(capacity, before))
        weights = _weights(policy, capacity)
        moves = _tiered(capacity, survivors, lost, spares, False, inside, weights)
        if moves is not None:
            return _swap(capacity, survivors, moves, spares, "moved the lost pods in its domain")
        sliced = None if self.keep_domain else slice_moves(capacity, survivors, lost, spares)
        if sliced is not None:
            moves, freed = sliced
            return _swap(capacity, survivors, moves, spares, "moved whole slices", freed)
        whole = replace_whole(capacity, survivors, policy, spares)
        if whole.kind == "replace":
            return whole
        moves = _tiered(capacity, survivors, lost, spares, False, None, weights)
        if moves is not None:
            return _swap(
                capacity, survivors, moves, spares, "moved the lost pods out of its domain"
            )
        if self.hold and _moves.could_return(capacity, survivors.nodes, lost, gang):
            return Recovery("wait", None)
        return whole
