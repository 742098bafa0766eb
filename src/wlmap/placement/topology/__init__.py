"""Topology-aware gang placement: nodes in nested domains, gangs, and placement quality.

- :mod:`.tree`: the static domain tree built from node labels;
- :mod:`.capacity`: free GPUs per node and domain, updated per placement;
- :mod:`.gang`: what a gang asks for and where it went;
- :mod:`.quality`: span, locality, leakage and communication cost of a placement;
- :mod:`.policy`: what a gang policy is, and applying its decision.
"""

from __future__ import annotations

from wlmap.placement.topology.capacity import FreeCapacity
from wlmap.placement.topology.gang import DomainCount, Gang, GangPlacement
from wlmap.placement.topology.policy import GangPolicy, apply, release
from wlmap.placement.topology.quality import GangQuality, TierWeights, default_weights, measure
from wlmap.placement.topology.tree import HOSTNAME_LABEL, Topology, TopologyError, build_topology

__all__ = [
    "HOSTNAME_LABEL",
    "DomainCount",
    "FreeCapacity",
    "Gang",
    "GangPlacement",
    "GangPolicy",
    "GangQuality",
    "TierWeights",
    "Topology",
    "TopologyError",
    "apply",
    "build_topology",
    "default_weights",
    "measure",
    "release",
]
