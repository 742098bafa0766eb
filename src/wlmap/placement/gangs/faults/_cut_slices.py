"""Where the lost pods of a sliced gang can go when their own slice domain has no room.

A sliced gang keeps every slice inside one domain of its slice level (an NVLink rack, say):
each such domain holds a multiple of ``slice_size`` of its pods. When a whole rack fails,
the pods it held are whole slices, and whole slices may go to any other rack inside the
gang's required domain without breaking anything; only the pods of a slice cut in two by
the fault must go back to their own domain. When that domain has no room either, the few
surviving pods of the cut slice are evicted with it and the slice moves whole: far fewer
healthy pods stopped than evicting the whole gang.

Rule, per slice domain ``D`` that lost pods: the ``lost mod slice_size`` pods of a cut
slice go back to ``D`` (nodes already holding the gang first, then the roomiest), else the
survivors of the cut slice in ``D`` are evicted and join the move. Then the moving pods go
out in whole slices to the slice domains met in :func:`._moves.tiers` order (finest domain
that holds the gang first, up to its required level), each domain taking as many whole
slices as its pod room holds, spare nodes first inside it as elsewhere.
"""

from __future__ import annotations

from wlmap.placement.gangs.capacity import FreeCapacity
from wlmap.placement.gangs.faults import _moves
from wlmap.placement.gangs.faults.spares import SparePool
from wlmap.placement.gangs.gang import Gang, GangPlacement
from wlmap.placement.gangs.tree import Topology

Pairs = tuple[tuple[int, int], ...]


def slice_moves(
    capacity: FreeCapacity, survivors: GangPlacement, lost: Pairs, spares: SparePool | None
) -> tuple[dict[int, int], dict[int, int]] | None:
    """(node -> pods to add, node -> surviving pods to evict), or None when slices do not fit."""
    gang = survivors.gang
    size, level = gang.slice_size, gang.slice_level
    if not size or level is None:
        return None
    topology = capacity.topology
    node_level = len(topology.levels)

    def domain(node: int) -> int:
        return node if level == node_level else int(topology.node_domain[level][node])

    holding = {n for n, _ in survivors.nodes}
    lost_in: dict[int, int] = {}
    for node, pods in lost:
        lost_in[domain(node)] = lost_in.get(domain(node), 0) + pods
    moves: dict[int, int] = {}
    evict: dict[int, int] = {}
    moving = 0
    for dom, cut_off in sorted(lost_in.items()):
        pods = cut_off
        back = pods % size
        if back:
            members = _members(topology, level, dom)
            trial = dict(moves)
            if _moves.fill(capacity, gang, back, [members], holding, spares, trial) == 0:
                moves = trial
                pods -= back
            else:
                cut = (size - back) % size
                for node, kept in survivors.nodes:
                    if cut and domain(node) == dom:
                        take = min(kept, cut)
                        evict[node] = take
                        cut -= take
                pods += (size - back) % size
        moving += pods
    if moving == 0:
        return moves, evict
    held = [n for n, _ in (*survivors.nodes, *lost)]
    order = [_members(topology, level, d) for d in _nearest(topology, level, gang, held)]
    for members in order:
        if moving == 0:
            break
        room = sum(_moves.room(capacity, n, gang, spares) - moves.get(n, 0) for n in members)
        slices = min(room // size, moving // size)
        if slices <= 0:
            continue
        _moves.fill(capacity, gang, slices * size, [members], holding, spares, moves)
        moving -= slices * size
    return (moves, evict) if moving == 0 else None


def _members(topology: Topology, level: int, dom: int) -> list[int]:
    if level == len(topology.levels):
        return [dom]
    return [int(n) for n in topology.members[level][dom]]


def _nearest(topology: Topology, level: int, gang: Gang, held: list[int]) -> list[int]:
    """Slice-level domains inside the gang's required domain, nearest to its survivors first.

    Nearness is the finest level above the slice level at which a domain shares a domain
    with a node of ``held`` (where the gang ran before the fault); ties by domain index.
    """
    node_level = len(topology.levels)
    count = len(topology.nodes) if level == node_level else len(topology.members[level])
    first = [d if level == node_level else int(topology.members[level][d][0]) for d in range(count)]
    ranked: list[tuple[int, int]] = []
    for dom, node in enumerate(first):
        near = -1
        for upper in range(level - 1, -1, -1):
            of = topology.node_domain[upper]
            if any(int(of[h]) == int(of[node]) for h in held):
                near = upper
                break
        if gang.required_level is not None and near < gang.required_level:
            continue
        ranked.append((-near, dom))
    return [dom for _, dom in sorted(ranked)]
