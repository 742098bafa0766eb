"""KAI Scheduler's two-level rule: the fullest domain that fits, then locality inside it.

Follows NVIDIA/KAI-Scheduler ``docs/topology/README.md`` ("Domain Selection (Bin-Packing)",
"Node Ordering Within Domains") and its topology plugin
(``pkg/scheduler/plugins/topology/job_filtering.go``, ``node_scoring.go``):

1. Relevant levels (``calculateRelevantDomainLevels``): from the preferred level (else the
   required one) up to the required level, or up to the whole cluster when there is none.
2. The tree is sorted down to the preferred (else required) level, each domain's children
   by the gang's GPUs over their free GPUs, highest first, i.e. fewest free GPUs first
   (``sortTree``), ties by domain id. Candidates are the domains of the relevant levels that
   can hold every pod, finest level first, each level in the sorted tree's breadth-first
   order (``sortDomainInfos``); the first one is taken, since with one pod shape KAI's
   allocation succeeds on the first domain whose pod count fits.
3. Inside it, a preferred level ranks its sub-domains by their place in the sorted tree;
   the last (the emptiest) scores highest: ``floor((i + 1) / n * 10)`` (``calculateNodeScores``).
   Nodes are taken by that score, then by KAI's default bin packing (fewest free GPUs first),
   then by node index; each node is filled before the next, as bin packing keeps choosing it.

Slices are KAI segments (subgroups with the slice level required): each slice in turn goes
to the first slice-level domain in the chosen domain, in the same sorted-tree order, with
room for it, and its pods follow the node order above. A gang with no level at all is not
topology-constrained in KAI: its pods bin-pack over the whole cluster.
"""

from __future__ import annotations

import numpy as np

from wlmap.placement.gangs.baselines._domain_walk import (
    IntArray,
    domain_count,
    nodes_of,
    slices_under,
    subdomains,
    tree_index,
    unit_capacity,
    units_needed,
)
from wlmap.placement.gangs.baselines._fill import Scratch, place_slices, slice_domains
from wlmap.placement.gangs.capacity import FreeCapacity
from wlmap.placement.gangs.gang import Gang, GangPlacement

__all__ = ["KaiPolicy"]


class KaiPolicy:
    """KAI's domain bin-packing and preferred-level locality (see the module docstring)."""

    name = "kai"

    def place(self, capacity: FreeCapacity, gang: Gang) -> GangPlacement | None:
        topology = capacity.topology
        need = units_needed(gang)
        required, preferred = gang.required_level, gang.preferred_level
        level, domain = -1, -1
        if required is not None or preferred is not None:
            finest = preferred if preferred is not None else required
            assert finest is not None
            top = required if required is not None else 0
            found = None
            for candidate_level in range(max(finest, top), top - 1, -1):
                fits = np.flatnonzero(unit_capacity(capacity, gang, candidate_level) >= need)
                if len(fits):
                    order = tree_order(capacity, candidate_level, fits)
                    found = (candidate_level, int(fits[order[0]]))
                    break
            if found is not None:
                level, domain = found
            elif required is not None:
                return None
        if level < 0 and int(unit_capacity(capacity, gang, 0).sum()) < need:
            return None
        scratch = Scratch(capacity, gang)
        scores = self._node_scores(capacity, level, domain, preferred)

        def node_order(s: Scratch, nodes: IntArray) -> IntArray:
            room = nodes[s.slots(nodes) > 0]
            keys = (room, s.free[room], -scores[room])
            result: IntArray = room[np.lexsort(keys)]
            return result

        sliced = slices_under(gang, level)
        nodes = (
            np.arange(len(topology.nodes), dtype=np.int64)
            if level < 0
            else nodes_of(topology, level, domain)
        )
        if sliced is None:
            if scratch.fill(node_order(scratch, nodes), gang.pods):
                return None
        else:
            size, slice_level = sliced

            def pick(candidates: IntArray, slots: IntArray) -> int:
                return int(tree_order(capacity, slice_level, candidates)[0])

            inner = slice_domains(scratch, level, domain, slice_level)
            if not place_slices(scratch, gang, inner, size, slice_level, pick, node_order):
                return None
        where = "the cluster" if level < 0 else topology.domain_name(level, domain)
        return scratch.placement(gang, f"fullest domain that fits: {where}")

    def _node_scores(
        self, capacity: FreeCapacity, level: int, domain: int, preferred: int | None
    ) -> IntArray:
        topology = capacity.topology
        scores = np.zeros(len(topology.nodes), dtype=np.int64)
        if preferred is None or preferred <= level:
            return scores
        if level < 0:  # the whole cluster: KAI's root domain
            inner = np.arange(domain_count(topology, preferred), dtype=np.int64)
        else:
            inner = subdomains(topology, level, domain, preferred)
        ranked = inner[tree_order(capacity, preferred, inner)]
        count = len(ranked)
        for position, sub in enumerate(ranked.tolist()):
            scores[nodes_of(topology, preferred, sub)] = (position + 1) * 10 // count
        return scores


def tree_order(capacity: FreeCapacity, level: int, domains: IntArray) -> IntArray:
    """Positions of ``domains`` (of ``level``) in KAI's sorted-tree breadth-first order.

    The order compares, from the coarsest ancestor down to the domain itself, free GPUs
    ascending then domain index: each parent's children are sorted, and the breadth-first
    walk visits parents in their own sorted order.
    """
    topology = capacity.topology
    node_level = len(topology.levels)
    if level == node_level:
        up = [topology.node_domain[a][domains] for a in range(node_level)]
        keys: list[IntArray] = []
        for a in range(node_level):
            keys += [capacity.domain_free[a][up[a]], up[a]]
        keys += [capacity.node_free[domains], domains]
    else:
        ancestors = tree_index(topology).ancestor[level]
        keys = []
        for a in range(level + 1):
            mapped = ancestors[a][domains]
            keys += [capacity.domain_free[a][mapped], mapped]
    order: IntArray = np.lexsort(tuple(reversed(keys))).astype(np.int64)
    return order
