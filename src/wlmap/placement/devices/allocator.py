"""Devices for one pod's claims on one node, searched as the in-tree allocator does.

The search follows the structured allocator of ``k8s.io/dynamic-resource-allocation``:
claims in order, requests in order, and for each device a request needs the candidates in
the order given (slice order for first-fit), skipping devices in use, those the selectors
reject and those that would break a ``matchAttribute`` constraint; when a later device
cannot be found it backtracks to the last choice and tries the next candidate. The first
complete solution wins. ``firstAvailable`` alternatives are tried in order; an ``All``
request takes every matching device of the node and fails if one is in use.

The in-tree allocator retries a request's k-th device from the first candidate; trying only
candidates after the (k-1)-th finds the same first solution (an earlier candidate was
either rejected with the same constraint values or already explored in the other order)
without visiting permutations of one set.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from wlmap.placement.devices.device_state import DeviceState, PodClaims
from wlmap.placement.devices.dra_objects import AttributeValue, Claim, Device, Request

__all__ = ["DeviceChoice", "allocate_pod"]

STEP_LIMIT = 100_000
"""Candidate tries per pod and node before the search gives up (the in-tree allocator
bounds its search by time instead)."""


@dataclass(frozen=True)
class DeviceChoice:
    """One allocated device: the claim and request it serves."""

    claim: str
    request: str
    device: Device


def allocate_pod(
    pod: PodClaims, node: str, order: Sequence[Device], state: DeviceState
) -> list[DeviceChoice] | None:
    """The first allocation of all of a pod's claims on ``node``, or None.

    Args:
        pod: the pod and its claims.
        node: the node.
        order: the node's free devices in the order to try them.
        state: free devices and request matching.

    Raises:
        PlacementInputError: a selector fails or a class is missing.
    """
    return _Search(pod.claims, node, order, state).run()


class _Search:
    def __init__(
        self, claims: Sequence[Claim], node: str, order: Sequence[Device], state: DeviceState
    ) -> None:
        self.claims, self.node, self.order, self.state = claims, node, order, state
        self.used: set[tuple[str, str, str]] = set()
        self.values: list[list[AttributeValue | None]] = [
            [None] * len(c.constraints) for c in claims
        ]
        self.counts: list[list[int]] = [[0] * len(c.constraints) for c in claims]
        self.chosen: list[DeviceChoice] = []
        self.steps = 0
        self._candidates: dict[tuple[int, str], list[Device]] = {}

    def run(self) -> list[DeviceChoice] | None:
        return list(self.chosen) if self._claim(0) else None

    def _claim(self, ci: int) -> bool:
        return ci == len(self.claims) or self._request(ci, 0)

    def _request(self, ci: int, ri: int) -> bool:
        claim = self.claims[ci]
        if ri == len(claim.requests):
            return self._claim(ci + 1)
        request = claim.requests[ri]
        return any(
            self._devices(ci, ri, option, 0, 0) for option in request.alternatives or (request,)
        )

    def _candidates_of(self, ci: int, request: Request) -> list[Device]:
        key = (ci, request.name)
        found = self._candidates.get(key)
        if found is None:
            found = self.state.candidates(self.claims[ci], request, self.order)
            self._candidates[key] = found
        return found

    def _devices(self, ci: int, ri: int, request: Request, k: int, start: int) -> bool:
        if request.mode == "All":
            return self._all(ci, ri, request)
        if k == request.count:
            return self._request(ci, ri + 1)
        candidates = self._candidates_of(ci, request)
        for position in range(start, len(candidates)):
            self.steps += 1
            if self.steps > STEP_LIMIT:
                return False
            device = candidates[position]
            if device.key in self.used or not self._add(ci, request, device):
                continue
            if self._devices(ci, ri, request, k + 1, position + 1):
                return True
            self._remove(ci, request, device)
        return False

    def _all(self, ci: int, ri: int, request: Request) -> bool:
        every = self.state.candidates(self.claims[ci], request, self.state.devices(self.node))
        if not every or any(d.key in self.state.allocated or d.key in self.used for d in every):
            return False
        added: list[Device] = []
        for device in every:
            if not self._add(ci, request, device):
                break
            added.append(device)
        else:
            if self._request(ci, ri + 1):
                return True
        for device in reversed(added):
            self._remove(ci, request, device)
        return False

    def _add(self, ci: int, request: Request, device: Device) -> bool:
        claim, values = self.claims[ci], self.values[ci]
        for index, constraint in enumerate(claim.constraints):
            if not constraint.covers(request.name):
                continue
            value = device.attribute(constraint.attribute)
            if value is None or (values[index] is not None and values[index] != value):
                return False
        for index, constraint in enumerate(claim.constraints):
            if constraint.covers(request.name):
                values[index] = device.attribute(constraint.attribute)
                self.counts[ci][index] += 1
        self.used.add(device.key)
        self.chosen.append(DeviceChoice(claim.name, request.name, device))
        return True

    def _remove(self, ci: int, request: Request, device: Device) -> None:
        claim = self.claims[ci]
        for index, constraint in enumerate(claim.constraints):
            if constraint.covers(request.name):
                self.counts[ci][index] -= 1
                if not self.counts[ci][index]:
                    self.values[ci][index] = None
        self.used.discard(device.key)
        self.chosen.pop()
