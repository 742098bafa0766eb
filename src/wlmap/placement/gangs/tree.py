"""The static shape of a cluster's network: nodes grouped into nested domains by label.

A topology is an ordered list of node-label keys, coarsest first (for example
``block > rack``). Every distinct value path of those labels is a domain: the nodes with
``block=b1`` form one block domain, the nodes with ``block=b1, rack=r3`` one rack domain
inside it. Rack ``r3`` under two different blocks is two domains, as Kueue and KAI treat it.
The node itself is the implicit finest level; a trailing ``kubernetes.io/hostname`` key
names it and is dropped, since every node is its own domain there.

Nodes that lack one of the labels do not belong to the topology: :func:`build_topology`
names the first such node and label, because a scheduler would leave it out silently and
a planner that did so would report capacity it cannot use.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from wlmap.errors import WlmapError
from wlmap.placement.nodes import Node

__all__ = ["HOSTNAME_LABEL", "Topology", "TopologyError", "build_topology"]

HOSTNAME_LABEL = "kubernetes.io/hostname"

IntArray = npt.NDArray[np.int64]


class TopologyError(WlmapError):
    """A topology cannot be built: no levels, a repeated level, or a node without a label."""


@dataclass(frozen=True, eq=False)
class Topology:
    """Nodes grouped into nested domains, one array per level.

    Attributes:
        levels: the label keys, coarsest first, without the node level.
        nodes: the nodes, in the order every per-node array follows.
        domain_values: per level, each domain's label values from the coarsest level down to
            this one, e.g. ``("b1", "r3")`` for a rack.
        node_domain: per level, the index of each node's domain at that level.
        parent: per level, each domain's parent domain index at the level above; ``-1`` at
            the coarsest level.
        members: per level, the node indices of each domain in ascending order.
        gpus: whole GPUs per node.
    """

    levels: tuple[str, ...]
    nodes: tuple[Node, ...]
    domain_values: tuple[tuple[tuple[str, ...], ...], ...]
    node_domain: tuple[IntArray, ...]
    parent: tuple[IntArray, ...]
    members: tuple[tuple[IntArray, ...], ...]
    gpus: IntArray

    def domain_count(self, level: int) -> int:
        """How many domains level ``level`` has."""
        return len(self.domain_values[level])

    def level_index(self, key: str) -> int:
        """The index of a level by its label key; the node level is ``len(levels)``.

        Raises:
            TopologyError: the key is not one of the topology's levels.
        """
        if key == HOSTNAME_LABEL:
            return len(self.levels)
        try:
            return self.levels.index(key)
        except ValueError:
            known = ", ".join([*self.levels, HOSTNAME_LABEL])
            raise TopologyError(f"level {key!r} is not in the topology (levels: {known})") from None

    def domain_name(self, level: int, domain: int) -> str:
        """A domain's values joined by ``/``, e.g. ``b1/r3``; a node's name at the node level."""
        if level == len(self.levels):
            return self.nodes[domain].name
        return "/".join(self.domain_values[level][domain])


def build_topology(levels: Sequence[str], nodes: Sequence[Node]) -> Topology:
    """Group ``nodes`` into domains by the label keys in ``levels`` (coarsest first).

    Raises:
        TopologyError: ``levels`` is empty or repeats a key, or a node lacks one of the labels.
    """
    keys = list(levels)
    if keys and keys[-1] == HOSTNAME_LABEL:
        keys.pop()
    if not keys:
        raise TopologyError("a topology needs at least one level above the node")
    if len(set(keys)) != len(keys):
        raise TopologyError(f"topology levels repeat a key: {', '.join(keys)}")
    if HOSTNAME_LABEL in keys:
        raise TopologyError(f"{HOSTNAME_LABEL} can only be the last (finest) level")
    paths: list[tuple[str, ...]] = []
    for node in nodes:
        missing = [k for k in keys if k not in node.labels]
        if missing:
            raise TopologyError(f"node {node.name!r} has no label {missing[0]!r}")
        paths.append(tuple(node.labels[k] for k in keys))
    values: list[tuple[tuple[str, ...], ...]] = []
    node_domain: list[IntArray] = []
    parent: list[IntArray] = []
    members: list[tuple[IntArray, ...]] = []
    for depth in range(1, len(keys) + 1):
        prefixes = sorted({p[:depth] for p in paths})
        index = {p: i for i, p in enumerate(prefixes)}
        of_node = np.array([index[p[:depth]] for p in paths], dtype=np.int64)
        if depth == 1:
            up = np.full(len(prefixes), -1, dtype=np.int64)
        else:
            above = {p: i for i, p in enumerate(values[-1])}
            up = np.array([above[p[:-1]] for p in prefixes], dtype=np.int64)
        order = np.argsort(of_node, kind="stable")
        bounds = np.searchsorted(of_node[order], np.arange(len(prefixes) + 1))
        values.append(tuple(prefixes))
        node_domain.append(of_node)
        parent.append(up)
        members.append(tuple(order[bounds[i] : bounds[i + 1]] for i in range(len(prefixes))))
    return Topology(
        levels=tuple(keys),
        nodes=tuple(nodes),
        domain_values=tuple(values),
        node_domain=tuple(node_domain),
        parent=tuple(parent),
        members=tuple(members),
        gpus=np.array([n.gpus for n in nodes], dtype=np.int64),
    )
