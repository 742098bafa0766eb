"""Each domain's best pair gain for every pod count, built bottom-up over the topology.

See :mod:`.solver` for why these tables are exact: the node split inside a finest domain
is the greedy one, and a coarser domain's table is the max-plus convolution of its
children's.
"""

from __future__ import annotations

import math

import numpy as np

from wlmap.placement.gangs.gang import Gang
from wlmap.placement.gangs.objective._domains import DomainIndex, GangRoom

__all__ = ["NONE", "GainTables", "convolve", "most_pairs"]


class GainTables:
    """Each domain's best scaled pair gain for every pod count, by max-plus convolution.

    ``value[level][domain][t]`` is the most gain (pairs inside the domain's subtree, each
    level's pairs times its weight step) with ``t`` pods in the domain; ``NONE`` where
    ``t`` pods cannot go there (no room, a broken slice, or a required level that must
    hold all of the gang or none of it).
    """

    def __init__(self, index: DomainIndex, room: GangRoom, gang: Gang, gains: list[int]) -> None:
        self.index = index
        self.room = room
        self.gang = gang
        self.gains = gains
        self.value: dict[int, dict[int, np.ndarray]] = {}
        self.choices: dict[tuple[int, int], list[tuple[int, np.ndarray]]] = {}

    def build(self, level: int) -> None:
        topology = self.index.topology
        finest = len(topology.levels) - 1
        pods = self.gang.pods
        out: dict[int, np.ndarray] = {}
        for domain in range(topology.domain_count(level)):
            top = min(pods, int(self.room.levels[level][domain]))
            if level == finest:
                rooms = self.room.nodes(topology.members[finest][domain])
                table = self.gains[finest + 1] * np.array(most_pairs(rooms, top), dtype=np.int64)
            else:
                table = np.zeros(1, dtype=np.int64)
                steps: list[tuple[int, np.ndarray]] = []
                for child in self.index.children[level][domain]:
                    table, arg = convolve(table, self.value[level + 1][int(child)], top)
                    steps.append((int(child), arg))
                self.choices[(level, domain)] = steps
                table = np.pad(table, (0, top + 1 - len(table)), constant_values=NONE)
            counts = np.arange(top + 1, dtype=np.int64)
            table = np.where(
                table > NONE, table + self.gains[level] * (counts * (counts - 1) // 2), NONE
            )
            if level <= self.room.slice_level and self.room.unit > 1:
                table[counts % self.room.unit != 0] = NONE
            if level == self.gang.required_level:
                table[(counts != 0) & (counts != pods)] = NONE
            out[domain] = table
        self.value[level] = out

    def unfold(self, level: int, domain: int, count: int, out: dict[int, int]) -> None:
        """Spread ``count`` pods of ``domain`` over its finest domains as the tables chose."""
        if level == len(self.index.topology.levels) - 1:
            out[domain] = count
            return
        for child, arg in reversed(self.choices[(level, domain)]):
            take = int(arg[count]) if count < len(arg) else 0
            if take:
                self.unfold(level + 1, child, take, out)
            count -= take


NONE = -(1 << 60)


def convolve(left: np.ndarray, right: np.ndarray, top: int) -> tuple[np.ndarray, np.ndarray]:
    """Max-plus convolution up to ``top``, and how much of each total came from ``right``."""
    size = min(top, len(left) - 1 + len(right) - 1) + 1
    out = np.full(size, NONE, dtype=np.int64)
    arg = np.zeros(size, dtype=np.int64)
    for take in np.flatnonzero(right > NONE):
        if take >= size:
            break
        part = left[: size - take]
        candidate = np.where(part > NONE, part + right[take], NONE)
        window = out[take : take + len(candidate)]
        better = candidate > window
        window[better] = candidate[better]
        arg[take : take + len(candidate)][better] = take
    return out, arg


def most_pairs(rooms: np.ndarray, top: int) -> list[int]:
    """Most pod pairs sharing a part for 0..top pods, filling the roomiest parts first."""
    rooms = np.sort(rooms)[::-1]
    out = [0] * (top + 1)
    full_pairs, full_pods = 0, 0
    for cap in (int(c) for c in rooms):
        for t in range(full_pods + 1, min(top, full_pods + cap) + 1):
            out[t] = full_pairs + math.comb(t - full_pods, 2)
        full_pairs += math.comb(cap, 2)
        full_pods += cap
        if full_pods >= top:
            break
    return out
