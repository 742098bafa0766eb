"""Where the pods of a failed node can go without moving any other pod of the gang.

Candidate nodes come in tiers: first the nodes of the finest domains that already hold the
gang (for wlmap's reaction, its surviving pods), then those of the next level up, and so on up to the gang's ceiling (its required
level, or the whole cluster when it has none). A sliced gang stays inside the slice-level
domain of the failed node, so every slice keeps to one domain. Inside a tier, spare nodes
come first (capacity kept for failures), then nodes that already run pods of the gang, then
the tightest node that takes all the pods still to place (best fit: a fault often hits
several gangs, and a whole free node is what the next one's pods may need), else the
roomiest; ties by node index. Given a :class:`Pull` (wlmap's reaction), the node whose pod
would share the cheapest links with the gang's other pods comes before those last three
(after spares): the tiers only say which domains hold the gang, not which holds most of it.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable

from wlmap.placement.gangs.capacity import FreeCapacity
from wlmap.placement.gangs.faults.spares import SparePool
from wlmap.placement.gangs.gang import Gang
from wlmap.placement.gangs.quality import TierWeights

Pairs = tuple[tuple[int, int], ...]


def room(capacity: FreeCapacity, node: int, gang: Gang, spares: SparePool | None) -> int:
    """Pods of ``gang`` that ``node`` can take, counting GPUs a spare holds in reserve."""
    held = spares.held.get(node, 0) if spares is not None else 0
    return (int(capacity.node_free[node]) + held) // gang.gpus_per_pod


def ceiling(gang: Gang) -> int:
    """The coarsest level moved pods may use: -1 for the whole cluster."""
    top = gang.required_level if gang.required_level is not None else -1
    if gang.slice_size and gang.slice_level is not None:
        top = max(top, gang.slice_level)
    return top


def enclosing(capacity: FreeCapacity, before: Pairs) -> int:
    """The finest level one domain of which holds all of ``before``; -1 when none does."""
    topology = capacity.topology
    nodes = [n for n, _ in before]
    for level in range(len(topology.levels) - 1, -1, -1):
        if len({int(topology.node_domain[level][n]) for n in nodes}) <= 1:
            return level
    return -1


def tiers(
    capacity: FreeCapacity, gang: Gang, before: Pairs, failed: int, top: int | None = None
) -> list[list[int]]:
    """Candidate nodes per tier, finest first, each node in at most one tier.

    ``top`` is the coarsest level to use, at least as fine as :func:`ceiling`.
    """
    topology = capacity.topology
    node_level = len(topology.levels)
    top = ceiling(gang) if top is None else max(top, ceiling(gang))
    sliced = bool(gang.slice_size)
    seen: set[int] = set()
    found: list[list[int]] = []
    for level in range(node_level - 1, top - 1, -1):
        members: Iterable[int]
        if level < 0:
            members = range(len(topology.nodes))
        else:
            of_node = topology.node_domain[level]
            if sliced:
                domains = [int(of_node[failed])]
            else:
                domains = sorted({int(of_node[n]) for n, _ in before})
            members = (int(n) for d in domains for n in topology.members[level][d])
        tier = [n for n in members if n not in seen]
        seen.update(tier)
        found.append(tier)
    if top == node_level:
        found.insert(0, [failed])
    return found


class Pull:
    """How much one more pod on a node would gain in cheap links to the gang's other pods.

    A pod on node ``n`` shares, with every gang pod in ``n``'s domain of level ``l`` and
    not in a finer one, links of that level's weight; so its cost falls by
    ``sum_l (w_{l-1} - w_l) x (gang pods in n's level-l domain)`` (the node level last),
    the marginal pair gain the exact reference maximises.
    """

    def __init__(
        self, capacity: FreeCapacity, pods: Iterable[tuple[int, int]], weights: TierWeights
    ) -> None:
        self.topology = capacity.topology
        ladder = [weights.across, *weights.levels, weights.node]
        self.steps = [above - below for above, below in itertools.pairwise(ladder)]
        self.counts: list[dict[int, int]] = [{} for _ in self.steps]
        for node, count in pods:
            self.add(node, count)

    def _domains(self, node: int) -> list[int]:
        return [int(of[node]) for of in self.topology.node_domain] + [node]

    def add(self, node: int, count: int) -> None:
        """``count`` more pods of the gang on ``node``."""
        for counts, domain in zip(self.counts, self._domains(node), strict=True):
            counts[domain] = counts.get(domain, 0) + count

    def gain(self, node: int) -> float:
        """The marginal pair gain of one more pod on ``node``."""
        return sum(
            step * counts.get(domain, 0)
            for step, counts, domain in zip(
                self.steps, self.counts, self._domains(node), strict=True
            )
        )


def fill(
    capacity: FreeCapacity,
    gang: Gang,
    pods: int,
    candidates: list[list[int]],
    holding: set[int],
    spares: SparePool | None,
    taken: dict[int, int],
    pull: Pull | None = None,
) -> int:
    """Put up to ``pods`` pods on the tiers in order; return how many are still unplaced.

    ``taken`` collects (node -> pods) and already-taken pods reduce a node's room; a
    ``pull`` ranks nodes by pair gain and learns each placement.
    """
    for tier in candidates:
        room_of = {}
        for node in tier:
            free = room(capacity, node, gang, spares) - taken.get(node, 0)
            if free > 0:
                room_of[node] = free
        while pods and room_of:
            node = min(room_of, key=lambda n: _rank(n, room_of[n], pods, holding, spares, pull))
            count = min(room_of.pop(node), pods)
            taken[node] = taken.get(node, 0) + count
            pods -= count
            if pull is not None:
                pull.add(node, count)
    return pods


def _rank(
    node: int,
    free: int,
    pods: int,
    holding: set[int],
    spares: SparePool | None,
    pull: Pull | None,
) -> tuple[bool, float, bool, bool, int, int]:
    """Spares first, then the most pair gain (with a pull), then nodes running the gang;
    then the tightest node that takes every pod still to place (best fit, leaving whole
    nodes to the next gang), else the roomiest."""
    spare = spares is not None and spares.is_spare(node)
    whole = free >= pods
    gain = pull.gain(node) if pull is not None else 0.0
    return (not spare, -gain, node not in holding, not whole, free if whole else -free, node)


def borrowed(capacity: FreeCapacity, gang: Gang, moves: Pairs, spares: SparePool | None) -> Pairs:
    """The spare GPUs to lend so that ``moves`` fit: beyond each spare node's free GPUs."""
    if spares is None:
        return ()
    lend = []
    for node, pods in moves:
        short = pods * gang.gpus_per_pod - int(capacity.node_free[node])
        if short > 0 and spares.is_spare(node):
            lend.append((node, short))
    return tuple(lend)


def could_return(capacity: FreeCapacity, survivors: Pairs, lost: Pairs, gang: Gang) -> bool:
    """Whether the domain the lost pods may use could ever hold them with the survivors.

    Counts the GPUs in service of the gang's required domain (the one holding the
    survivors; the whole cluster without one), as if every other gang there finished: when
    even that is too small (the gang filled its required domain and a node of it failed),
    waiting there is futile until the repair. Not the slice domain: a sliced gang's lost
    pods may come back as whole slices in any slice domain of the required one.
    """
    topology = capacity.topology
    top = gang.required_level if gang.required_level is not None else -1
    anchor = (survivors or lost)[0][0]
    if top < 0:
        members: Iterable[int] = range(len(topology.nodes))
    elif top == len(topology.levels):
        members = [anchor]
    else:
        members = topology.members[top][int(topology.node_domain[top][anchor])].tolist()
    slots = sum(int(capacity.usable[n]) // gang.gpus_per_pod for n in members)
    return slots >= sum(p for _, p in survivors) + sum(p for _, p in lost)
