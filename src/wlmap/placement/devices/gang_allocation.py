"""A gang's device allocation, the check of its alignment, and first-fit as the baseline.

First-fit is what the default scheduler does with DRA claims, pod by pod: nodes in order
(the order their slices are listed), and on each node the in-tree allocator's search over
devices in slice order. It knows nothing of the gang beyond all-or-nothing (a gang that
does not fit whole is rolled back, as a gang scheduler would), and nothing of alignment
across pods, which DRA cannot express.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from wlmap.placement.devices.allocator import DeviceChoice, allocate_pod
from wlmap.placement.devices.device_state import DeviceState, PodClaims
from wlmap.placement.devices.dra_objects import Device

__all__ = ["GangAllocation", "aligned", "first_fit_gang"]


@dataclass(frozen=True)
class GangAllocation:
    """Devices for every pod of a gang.

    Attributes:
        pods: per pod, in the gang's order: ``(pod name, node, device choices)``.
    """

    pods: tuple[tuple[str, str, tuple[DeviceChoice, ...]], ...]

    @property
    def devices(self) -> list[Device]:
        """Every device of the gang."""
        return [c.device for _, _, choices in self.pods for c in choices]


def aligned(allocation: GangAllocation, gang_attributes: Sequence[str]) -> bool:
    """Whether all the gang's devices share one value of each of ``gang_attributes``
    (for example the NVLink clique), every device having the attribute."""
    devices = allocation.devices
    for attribute in gang_attributes:
        values = {d.attribute(attribute) for d in devices}
        if None in values or len(values) > 1:
            return False
    return True


def first_fit_gang(pods: Sequence[PodClaims], state: DeviceState) -> GangAllocation | None:
    """Allocate a gang pod by pod, first node and first devices that fit; all or nothing.

    On success the devices are marked allocated in ``state``; on failure ``state`` is as
    it was.

    Raises:
        PlacementInputError: a selector fails or a class is missing.
    """
    placed: list[tuple[str, str, tuple[DeviceChoice, ...]]] = []
    for pod in pods:
        for node in state.nodes:
            if state.free_count(node) < pod.devices:
                continue  # the allocator would find nothing there
            choices = allocate_pod(pod, node, state.free(node), state)
            if choices is not None:
                state.take(c.device for c in choices)
                placed.append((pod.name, node, tuple(choices)))
                break
        else:
            for _, _, done in placed:
                state.release(c.device for c in done)
            return None
    return GangAllocation(tuple(placed))
