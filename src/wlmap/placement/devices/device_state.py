"""Which devices are free, per node, and which devices a request may use.

Devices stay in slice order everywhere: that order is what the in-tree allocator tries.
Devices of ``allNodes`` slices (node None) are reachable from every node and are listed
after the node's own.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from wlmap.errors import PlacementInputError
from wlmap.placement.devices.dra_objects import Claim, Device, Request
from wlmap.placement.devices.inventory import DraInventory
from wlmap.placement.devices.selectors import SelectorEngine

__all__ = ["DeviceState", "PodClaims"]


@dataclass(frozen=True)
class PodClaims:
    """One pod to give devices to: its name and the claims it needs allocated (each
    template-made claim is the pod's own)."""

    name: str
    claims: tuple[Claim, ...]

    @property
    def devices(self) -> int:
        """Devices the pod asks for in ``ExactCount`` mode (the first alternative of a
        ``firstAvailable`` request); a lower bound when it has ``All`` requests."""
        return sum(
            (r.alternatives[0] if r.alternatives else r).count
            for c in self.claims
            for r in c.requests
        )


class DeviceState:
    """Free devices by node over an inventory, and request matching. Tainted devices
    (``NoSchedule``, ``NoExecute``) start allocated: the scheduler gives them to no new
    claim.

    Args:
        inventory: the devices, classes and claims.
        engine: the CEL engine (one is made when not given).
    """

    def __init__(self, inventory: DraInventory, engine: SelectorEngine | None = None) -> None:
        self.inventory = inventory
        self.engine = engine or SelectorEngine()
        self.allocated: set[tuple[str, str, str]] = set()
        by_node: dict[str | None, list[Device]] = {}
        for device in inventory.devices:
            by_node.setdefault(device.node, []).append(device)
        shared = by_node.pop(None, [])
        self.nodes: tuple[str, ...] = tuple(n for n in by_node if n is not None)
        self._devices = {n: tuple(d + shared) for n, d in by_node.items() if n is not None}
        self._matches: dict[tuple[str, str, tuple[str, str, str]], bool] = {}
        self._free_count = {n: len(d) for n, d in self._devices.items()}
        self._watchers: list[Callable[[Sequence[Device], int], None]] = []
        # the scheduler gives no new claim a tainted device: as if allocated
        self.take(d for d in inventory.devices if d.taints)

    def watch(self, watcher: Callable[[Sequence[Device], int], None]) -> None:
        """Call ``watcher(devices, -1)`` when devices are taken and ``(devices, +1)`` when
        released (only devices whose state changes), to keep aggregates up to date."""
        self._watchers.append(watcher)

    def free_count(self, node: str) -> int:
        """How many of the node's devices are free."""
        return self._free_count.get(node, 0)

    def devices(self, node: str) -> tuple[Device, ...]:
        """Every device reachable from ``node``, in slice order."""
        return self._devices.get(node, ())

    def free(self, node: str) -> list[Device]:
        """The node's devices not allocated yet, in slice order."""
        return [d for d in self._devices.get(node, ()) if d.key not in self.allocated]

    def free_devices(self) -> list[Device]:
        """Every free device once, in slice order."""
        return [d for d in self.inventory.devices if d.key not in self.allocated]

    def take(self, devices: Iterable[Device]) -> None:
        """Mark devices allocated."""
        changed = []
        for device in devices:
            if device.key not in self.allocated:
                self.allocated.add(device.key)
                changed.append(device)
        self._changed(changed, -1)

    def release(self, devices: Iterable[Device]) -> None:
        """Mark devices free again (a tainted one stays taken)."""
        changed = []
        for device in devices:
            if device.key in self.allocated and not device.taints:
                self.allocated.discard(device.key)
                changed.append(device)
        self._changed(changed, +1)

    def _changed(self, devices: Sequence[Device], sign: int) -> None:
        for device in devices:
            for node in (device.node,) if device.node is not None else self.nodes:
                self._free_count[node] += sign
        for watcher in self._watchers:
            watcher(devices, sign)

    def candidates(self, claim: Claim, request: Request, devices: Sequence[Device]) -> list[Device]:
        """The devices (of ``devices``, order kept) that the request's class and own
        selectors accept.

        Raises:
            PlacementInputError: the class is not in the inventory, or a selector fails.
        """
        device_class = self.inventory.classes.get(request.device_class)
        if device_class is None:
            raise PlacementInputError(
                f"{claim.name} request {request.name}: DeviceClass {request.device_class!r} "
                "is not in the input",
                file=self.engine.file,
                row=None,
                column=None,
            )
        found = []
        for device in devices:
            key = (claim.name, request.name, device.key)
            ok = self._matches.get(key)
            if ok is None:
                ok = self.engine.matches(
                    device, device_class.selectors, f"DeviceClass {device_class.name}"
                ) and self.engine.matches(
                    device, request.selectors, f"{claim.name} request {request.name}"
                )
                self._matches[key] = ok
            if ok:
                found.append(device)
        return found
