"""An independent check of a gang placement against the gang and the free capacity.

Policies promise exact pods, room on every node, the required level and the slices; this
checks each promise from the placement alone, so a simulator in verify mode and the tests
do not trust the policy that made it:

- the (node, pods) pairs name existing nodes, ascending, each once, with pods >= 1;
- the pods add up to the gang's pods;
- every node has ``pods x gpus_per_pod`` free GPUs (checked before the placement is applied);
- one domain of the required level holds every pod;
- every domain of the slice level holds a whole number of slices: pods are interchangeable,
  so a domain holding a multiple of ``slice_size`` pods can hold that many whole slices, and
  a domain holding any other count must split a slice.
"""

from __future__ import annotations

from wlmap.placement.gangs.capacity import FreeCapacity
from wlmap.placement.gangs.gang import GangPlacement
from wlmap.placement.gangs.tree import Topology

__all__ = ["placement_problems", "request_problems", "required_met"]


def placement_problems(capacity: FreeCapacity, placement: GangPlacement) -> list[str]:
    """What is wrong with ``placement`` on ``capacity`` (empty when it is valid)."""
    topology = capacity.topology
    gang = placement.gang
    problems = []
    nodes = [node for node, _ in placement.nodes]
    if any(not 0 <= n < len(topology.nodes) for n in nodes):
        return [f"a node index is outside the cluster's {len(topology.nodes)} nodes: {nodes}"]
    if nodes != sorted(set(nodes)):
        problems.append(f"nodes must be ascending and each listed once, got {nodes}")
    if any(pods < 1 for _, pods in placement.nodes):
        problems.append("every listed node must get at least one pod")
    for node, pods in placement.nodes:
        free = int(capacity.node_free[node])
        if pods * gang.gpus_per_pod > free:
            problems.append(
                f"node {topology.nodes[node].name} has {free} free GPUs, "
                f"{pods} pods of {gang.gpus_per_pod} need {pods * gang.gpus_per_pod}"
            )
    problems.extend(request_problems(placement, topology))
    return problems


def request_problems(placement: GangPlacement, topology: Topology) -> list[str]:
    """What ``placement`` breaks of its gang's request: pod count, required level, slices.

    It needs no capacity, so it also checks a placement already applied.
    """
    gang = placement.gang
    problems = []
    total = sum(pods for _, pods in placement.nodes)
    if total != gang.pods:
        problems.append(f"{total} pods placed, the gang has {gang.pods}")
    if not required_met(placement, topology):
        level = gang.required_level
        assert level is not None  # only a required level can be unmet
        spread = placement.domain_counts(topology, level)
        problems.append(
            f"required level {_level_name(topology, level)} spans {len(spread)} domains: "
            + ", ".join(topology.domain_name(level, d) for d in sorted(spread))
        )
    if gang.slice_size and gang.slice_level is not None:
        counts = placement.domain_counts(topology, gang.slice_level)
        split = sorted(d for d, count in counts.items() if count % gang.slice_size)
        if split:
            problems.append(
                f"slices of {gang.slice_size} pods split across "
                f"{_level_name(topology, gang.slice_level)} domains: "
                + ", ".join(
                    f"{topology.domain_name(gang.slice_level, d)} ({counts[d]})" for d in split
                )
            )
    return problems


def required_met(placement: GangPlacement, topology: Topology) -> bool:
    """Whether one domain of the gang's required level holds all its pods (True with none)."""
    level = placement.gang.required_level
    return level is None or len(placement.domain_counts(topology, level)) <= 1


def _level_name(topology: Topology, level: int) -> str:
    return topology.levels[level] if level < len(topology.levels) else "node"
