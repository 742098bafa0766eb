"""What a gang placement policy is, and how its decision is applied to the capacity.

A policy looks at the free capacity and a gang and returns where every pod goes, or None
when the gang cannot be placed whole under its required level. It never changes the
capacity itself: :func:`apply` and :func:`release` do, so a simulator, a planner that only
answers "where would it go" and an exact reference can share one policy object.
"""

from __future__ import annotations

from typing import Protocol

from wlmap.placement.gangs.capacity import FreeCapacity
from wlmap.placement.gangs.gang import Gang, GangPlacement

__all__ = ["GangPolicy", "apply", "release"]


class GangPolicy(Protocol):
    """A deterministic rule for placing a whole gang.

    Attributes:
        name: the policy's name as the CLI and result files spell it.
    """

    name: str

    def place(self, capacity: FreeCapacity, gang: Gang) -> GangPlacement | None:
        """Where each pod of ``gang`` goes, or None when it does not fit whole.

        A returned placement puts exactly ``gang.pods`` pods on nodes with room for them,
        inside one domain of ``gang.required_level`` when the gang has one, and each slice
        inside one domain of ``gang.slice_level``.
        """
        ...


def apply(capacity: FreeCapacity, placement: GangPlacement) -> None:
    """Take the GPUs of every pod of ``placement``."""
    per_pod = placement.gang.gpus_per_pod
    for node, pods in placement.nodes:
        capacity.take(node, pods * per_pod)


def release(capacity: FreeCapacity, placement: GangPlacement) -> None:
    """Give back the GPUs of every pod of ``placement`` (the gang finished or was evicted)."""
    per_pod = placement.gang.gpus_per_pod
    for node, pods in placement.nodes:
        capacity.give(node, pods * per_pod)
