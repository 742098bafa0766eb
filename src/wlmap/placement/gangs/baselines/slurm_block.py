"""Slurm-block-like: base blocks and their power-of-two aggregates, segments inside blocks.

Follows Slurm's ``topology/block`` plugin as ``topology.conf(5)`` documents it (SchedMD/slurm
``doc/man/man5/topology.conf.5``, section "topology/block"): blocks of nodes (here the
finest domain level, the NVLink domain) are "paired with other contiguous blocks, to create
a higher level block", each level a power of two larger (``BlockSizes``), and the plugin
"places emphasis on reducing fragmentation" over starting jobs on the first free nodes. A
job's ``--segment`` size splits it into segments that each stay inside one base block.

The rule, on pods of whole GPUs:

1. Scope: the blocks of each domain of the required level (a higher-level block never
   crosses it); all blocks when there is none; a single block when the required level is
   the block level. A required node level takes the node with the fewest free pod slots
   that holds every pod.
2. Segments: a gang with slices is cut into segments of the slice size; a segment stays
   inside one domain of the slice level or inside one block, whichever is finer (a block
   inside a coarser slice domain keeps the slice whole). Without slices a pod is a segment.
3. For ``k = 0, 1, 2, ...``, the aggregated blocks of ``2**k`` consecutive blocks (aligned,
   in domain order, clipped to the scope) are tried; the first ``k`` where one holds every
   segment wins, and among those the one with the fewest free pod slots (best fit, ties to
   the first).
4. Inside it, blocks are taken with the most segments first and the last one best fit
   (fewest that still hold the rest); inside a block, each segment goes to the segment
   domain with the fewest free slots that holds it, and pods to the nodes with the fewest
   free GPUs first (Slurm's best fit on nodes).
"""

from __future__ import annotations

import numpy as np

from wlmap.placement.gangs.baselines._domain_walk import (
    IntArray,
    effective_slice,
    nodes_of,
    subdomains,
)
from wlmap.placement.gangs.baselines._fill import Scratch, pack_nodes, place_slices
from wlmap.placement.gangs.baselines._kueue_counts import distribute
from wlmap.placement.gangs.capacity import FreeCapacity
from wlmap.placement.gangs.gang import Gang, GangPlacement

__all__ = ["SlurmBlockPolicy"]


class SlurmBlockPolicy:
    """Slurm topology/block-like placement (see the module docstring)."""

    name = "slurm-block"

    def place(self, capacity: FreeCapacity, gang: Gang) -> GangPlacement | None:
        topology = capacity.topology
        node_level = len(topology.levels)
        block_level = node_level - 1
        g = gang.gpus_per_pod
        scratch = Scratch(capacity, gang)
        required = gang.required_level
        if required == node_level:
            slots = capacity.pod_slots(node_level, g)
            fits = np.flatnonzero(slots >= gang.pods)
            if len(fits) == 0:
                return None
            node = int(fits[np.lexsort((fits, slots[fits]))[0]])
            scratch.take(node, gang.pods)
            return scratch.placement(gang, f"best-fit node {topology.nodes[node].name}")
        sliced = effective_slice(gang)
        size, seg_level = (
            (1, block_level) if sliced is None else (sliced[0], max(sliced[1], block_level))
        )
        need = gang.pods // size
        per_seg_domain = capacity.pod_slots(seg_level, g) // size
        units = per_seg_domain
        if seg_level == node_level:
            blocks = topology.domain_count(block_level)
            of_node = topology.node_domain[block_level]
            units = np.bincount(of_node, weights=per_seg_domain, minlength=blocks).astype(np.int64)
        free_slots = capacity.pod_slots(block_level, g)
        scopes = _scopes(capacity, required)
        longest = 1 if required == block_level else max(len(scope) for scope in scopes)
        chosen = _choose_run(scopes, units, free_slots, need, longest)
        if chosen is None:
            return None
        order = chosen[np.lexsort((chosen, -units[chosen]))]
        taken = distribute(order, units[order], need, best_fit=True)
        assert taken is not None
        for block, count in taken:
            if sliced is None:
                left = scratch.fill(
                    pack_nodes(scratch, nodes_of(topology, block_level, block)), count
                )
                assert left == 0
                continue
            inner = subdomains(topology, block_level, block, seg_level)
            part = Gang(gang.name, count * size, g)
            if not place_slices(scratch, part, inner, size, seg_level, _fewest_slots, pack_nodes):
                return None
        names = [topology.domain_name(block_level, int(b)) for b in chosen]
        label = names[0] if len(names) == 1 else f"{names[0]}..{names[-1]}"
        return scratch.placement(gang, f"aggregated block of {len(chosen)}: {label}")


def _fewest_slots(candidates: IntArray, slots: IntArray) -> int:
    return int(np.lexsort((candidates, slots))[0])


def _scopes(capacity: FreeCapacity, required: int | None) -> list[IntArray]:
    """The runs of consecutive blocks an aggregated block may be cut from."""
    topology = capacity.topology
    block_level = len(topology.levels) - 1
    count = topology.domain_count(block_level)
    if required is None:
        return [np.arange(count, dtype=np.int64)]
    if required == block_level:
        # every block is its own scope; one scope of width-1 runs gives the same choice
        return [np.arange(count, dtype=np.int64)]
    return [
        subdomains(topology, required, d, block_level)
        for d in range(topology.domain_count(required))
    ]


def _choose_run(
    scopes: list[IntArray], units: IntArray, free: IntArray, need: int, longest: int
) -> IntArray | None:
    """The smallest aligned power-of-two run (up to ``longest`` blocks) holding ``need``, best fit."""
    width = 1
    while True:
        best: tuple[int, IntArray] | None = None
        for scope in scopes:
            starts = np.arange(0, len(scope), width)
            held = np.add.reduceat(units[scope], starts)
            fits = np.flatnonzero(held >= need)
            if len(fits) == 0:
                continue
            slack = np.add.reduceat(free[scope], starts)[fits]
            at = int(fits[int(np.argmin(slack))])
            if best is None or int(slack.min()) < best[0]:
                best = (int(slack.min()), scope[starts[at] : starts[at] + width])
        if best is not None:
            return best[1]
        if width >= longest:
            return None
        width *= 2
