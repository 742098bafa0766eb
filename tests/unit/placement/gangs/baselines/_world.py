"""Small hand-made clusters and the validity check every baseline test shares."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from wlmap.placement.gangs import FreeCapacity, Gang, GangPlacement, Topology, build_topology
from wlmap.placement.nodes import Node


def cluster(spec: Mapping[str, Mapping[str, Sequence[int]]]) -> Topology:
    """A block > rack topology from ``{block: {rack: [GPUs of each node]}}``.

    Nodes are named ``<block>-<rack>-n<i>`` and indexed in the order given.
    """
    nodes = [
        Node(f"{b}-{r}-n{i}", 64_000, 262_144, gpus, "H100", labels={"block": b, "rack": r})
        for b, racks in spec.items()
        for r, per_node in racks.items()
        for i, gpus in enumerate(per_node)
    ]
    return build_topology(["block", "rack"], nodes)


def busy(topology: Topology, used: Mapping[str, int]) -> FreeCapacity:
    """The topology's capacity with ``used[name]`` GPUs taken on the named nodes."""
    capacity = FreeCapacity(topology)
    index = {node.name: i for i, node in enumerate(topology.nodes)}
    for name, gpus in used.items():
        capacity.take(index[name], gpus)
    return capacity


def by_name(topology: Topology, placement: GangPlacement | None) -> dict[str, int] | None:
    """Pods per node name, or None."""
    if placement is None:
        return None
    return {topology.nodes[node].name: pods for node, pods in placement.nodes}


def problems(capacity: FreeCapacity, gang: Gang, placement: GangPlacement) -> list[str]:
    """Everything wrong with ``placement`` for ``gang`` on ``capacity`` (empty when valid)."""
    topology = capacity.topology
    found: list[str] = []
    nodes = [node for node, _ in placement.nodes]
    if nodes != sorted(set(nodes)):
        found.append(f"nodes not ascending and distinct: {nodes}")
    if sum(pods for _, pods in placement.nodes) != gang.pods:
        found.append(f"{sum(p for _, p in placement.nodes)} pods placed, gang has {gang.pods}")
    for node, pods in placement.nodes:
        if pods < 1 or pods * gang.gpus_per_pod > int(capacity.node_free[node]):
            found.append(
                f"node {topology.nodes[node].name}: {pods} pods, {int(capacity.node_free[node])} GPUs free"
            )
    if gang.required_level is not None:
        spread = placement.domain_counts(topology, gang.required_level)
        if len(spread) != 1:
            found.append(f"required level {gang.required_level} spans {len(spread)} domains")
    if gang.slice_size and gang.slice_level is not None:
        for domain, pods in placement.domain_counts(topology, gang.slice_level).items():
            if pods % gang.slice_size:
                found.append(
                    f"slice domain {domain} holds {pods} pods, slices of {gang.slice_size}"
                )
    return found
