"""wlmap's gang device planner: devices for a whole gang at once, aligned, all or nothing.

A gang may need all its devices to share attributes no single claim can express (the
NVLink clique of a ComputeDomain: ``gang_attributes``). The planner splits the free
devices into domains by those attributes and, in each domain with enough free devices,
places the pods (largest first), each on the node and devices that break the fewest
aligned groups still whole. Aligned groups are levels coarse to fine: the gang
attributes, the node, then the attributes the claims' ``matchAttribute`` constraints use
(the PCIe root). On a node the devices are tried in preference order (partly used groups
with the fewest free devices first, whole groups last, then slice order) by the same
search as the in-tree allocator, so every claim constraint holds. Among domains the one
whose placement breaks the fewest whole groups, level by level, and then leaves the fewest
free devices stranded in the groups it touched, wins; ties go to slice order.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence

from wlmap.placement.devices._node_bounds import NodeBounds, nodes_of
from wlmap.placement.devices.allocator import DeviceChoice, allocate_pod
from wlmap.placement.devices.device_state import DeviceState, PodClaims
from wlmap.placement.devices.dra_objects import AttributeValue, Claim, Device
from wlmap.placement.devices.gang_allocation import GangAllocation

__all__ = ["GangPlanner"]

_Group = tuple[int, *tuple[Hashable, ...]]  # level first, then what tells groups apart
_Placed = list[tuple[str, str, tuple[DeviceChoice, ...]]]
_Best = tuple[tuple[int, ...], int, str, list[DeviceChoice]]
_Domain = tuple[AttributeValue | None, ...]
_Fit = tuple[int, tuple[Claim, ...], list[DeviceChoice] | None]
_BOUNDED = 16
"""Domains of more nodes than this are searched bucket by bucket (see ``_node_bounds``)."""


class GangPlanner:
    """Plans gangs over one :class:`DeviceState`.

    Args:
        state: the devices and what is allocated; plans mark their devices allocated.
        gang_attributes: attributes every device of a gang must share (hard).
        group_attributes: node-local attributes whose groups should be kept whole
            (finest last), e.g. ``resource.kubernetes.io/pcieRoot``.
        score: when False, take the first domain, node and devices (slice order) that
            fit instead of scoring them: first-fit that keeps the gang attributes, to
            measure what the scoring adds.
    """

    def __init__(
        self,
        state: DeviceState,
        gang_attributes: Sequence[str] = (),
        group_attributes: Sequence[str] = (),
        *,
        score: bool = True,
    ) -> None:
        self.state = state
        self.score = score
        self.gang_attributes = tuple(gang_attributes)
        self.group_attributes = tuple(group_attributes)
        self._keys: dict[tuple[str, str, str], tuple[_Group, ...]] = {}
        self._domain_keys: dict[tuple[str, str, str], tuple[AttributeValue | None, ...]] = {}
        self.total: dict[_Group, int] = {}
        self.free: dict[_Group, int] = {}
        self._domain_nodes: dict[tuple[AttributeValue | None, ...], dict[str, None]] = {}
        self._domain_free: dict[tuple[AttributeValue | None, ...], int] = {}
        self._local = all(d.node is not None for d in state.inventory.devices)
        self._changes: dict[str | None, int] = {}
        self._fits: dict[tuple[str, _Domain, tuple[int, ...]], _Fit] = {}
        for device in state.inventory.devices:
            for group in self._groups(device):
                self.total[group] = self.total.get(group, 0) + 1
            domain = self._domain_of(device)
            if None not in domain and device.node is not None:
                self._domain_nodes.setdefault(domain, {})[device.node] = None
        self._bounds: NodeBounds | None = None
        self._ranks: dict[tuple[AttributeValue | None, ...], dict[str, int]] = {}
        self._count(state.free_devices(), +1)
        if score and self._local:
            level = len(self.gang_attributes)
            self._bounds = NodeBounds(
                nodes_of(
                    (d.node, self._groups(d)[level], self._groups(d)[-1])
                    for d in state.inventory.devices
                ),
                self.free,
                self.total,
                max(0, len(self.group_attributes) - 1),
                fine=bool(self.group_attributes),
            )
        state.watch(self._count)

    def _count(self, devices: Sequence[Device], sign: int) -> None:
        """Keep the free counts per group and per domain in step with the state."""
        for device in devices:
            for group in self._groups(device):
                self.free[group] = self.free.get(group, 0) + sign
            domain = self._domain_of(device)
            self._domain_free[domain] = self._domain_free.get(domain, 0) + sign
            self._changes[device.node] = self._changes.get(device.node, 0) + 1
        if self._bounds is not None:
            for node in {d.node for d in devices if d.node is not None}:
                self._bounds.update(node)

    def plan(self, pods: Sequence[PodClaims]) -> GangAllocation | None:
        """Devices for every pod of the gang, or None (state unchanged) when it does not
        fit whole in one domain.

        Raises:
            PlacementInputError: a selector fails or a class is missing.
        """
        need = sum(p.devices for p in pods)
        best: tuple[tuple[int, ...], _Placed] | None = None
        for domain, nodes in self._domain_nodes.items():
            if self._domain_free.get(domain, 0) < need:
                continue
            placed = self._place(pods, list(nodes), domain)
            if placed is None:
                continue
            chosen = [c.device for _, _, choices in placed for c in choices]
            self.state.release(chosen)
            cost = self._cost(chosen)
            if best is None or cost < best[0]:
                best = (cost, placed)
            if not any(cost):
                break  # no later domain can do better, and ties go to the earlier one
        if best is None:
            return None
        for _, _, choices in best[1]:
            self.state.take(c.device for c in choices)
        order = {p.name: i for i, p in enumerate(pods)}
        return GangAllocation(tuple(sorted(best[1], key=lambda p: order[p[0]])))

    def _groups(self, device: Device) -> tuple[_Group, ...]:
        """The device's aligned group at each level; a group key starts with its level."""
        found = self._keys.get(device.key)
        if found is None:
            node, fine = device.node, len(self.gang_attributes) + 1
            found = (
                *((i, a, device.attribute(a)) for i, a in enumerate(self.gang_attributes)),
                (fine - 1, node),
                *(
                    (fine + i, a, node, device.attribute(a))
                    for i, a in enumerate(self.group_attributes)
                ),
            )
            self._keys[device.key] = found
        return found

    def _domain_of(self, device: Device) -> tuple[AttributeValue | None, ...]:
        found = self._domain_keys.get(device.key)
        if found is None:
            found = tuple(device.attribute(a) for a in self.gang_attributes)
            self._domain_keys[device.key] = found
        return found

    def _free_in(self, node: str, domain: tuple[AttributeValue | None, ...]) -> list[Device]:
        if not self.gang_attributes:
            return self.state.free(node)  # one domain: every device
        return [d for d in self.state.free(node) if self._domain_of(d) == domain]

    def _cost(self, chosen: Sequence[Device]) -> tuple[int, ...]:
        """Whole groups broken per level (coarse first), then free devices left in the
        finest groups touched, were ``chosen`` taken now (nothing when not scoring)."""
        if not self.score:
            return ()
        free = self.free
        taken: dict[_Group, int] = {}
        finest = set()
        for device in chosen:
            groups = self._groups(device)
            for group in groups:
                taken[group] = taken.get(group, 0) + 1
            finest.add(groups[-1])
        broken = [0] * (len(self.gang_attributes) + 1 + len(self.group_attributes))
        for group, count in taken.items():
            before = free.get(group, 0)
            if before == self.total[group] and count < before:
                broken[group[0]] += 1
        stranded = sum(free.get(g, 0) - taken[g] for g in finest)
        return (*broken, stranded)

    def _place(
        self,
        pods: Sequence[PodClaims],
        nodes: Sequence[str],
        domain: tuple[AttributeValue | None, ...],
    ) -> _Placed | None:
        """Place the pods in one domain, largest first; devices stay taken on success."""
        placed: _Placed = []
        for pod in sorted(pods, key=lambda p: -p.devices):
            if self._bounds is not None and len(nodes) > _BOUNDED and _exact(pod):
                best = self._bounded(pod, nodes, domain)
            else:
                best = None
                for rank, node in enumerate(nodes):
                    best = self._try(pod, node, rank, domain, best)
                    if best is not None and not any(best[0]):
                        break  # breaks no whole group and strands nothing: nothing does better
            if best is None:
                for _, _, done in placed:
                    self.state.release(c.device for c in done)
                return None
            _, _, node, choices = best
            self.state.take(c.device for c in choices)
            placed.append((pod.name, node, tuple(choices)))
        return placed

    def _try(
        self,
        pod: PodClaims,
        node: str,
        rank: int,
        domain: tuple[AttributeValue | None, ...],
        best: _Best | None,
    ) -> _Best | None:
        """The better of ``best`` and the pod's devices on ``node`` (ties: lower rank)."""
        if self.state.free_count(node) < pod.devices:
            return best
        choices = self._fit(pod, node, domain)
        if choices is None:
            return best
        cost = self._cost([c.device for c in choices])
        if best is None or (cost, rank) < (best[0], best[1]):
            return (cost, rank, node, choices)
        return best

    def _fit(self, pod: PodClaims, node: str, domain: _Domain) -> list[DeviceChoice] | None:
        """The search's devices for the pod on ``node`` (preference order), or None.

        When every device belongs to one node, the order and the search depend only on the
        node's free devices, so the answer is kept until one of them is taken or released:
        the pods of a gang share their claims, and each pod's scan revisits the nodes the
        previous pods did not change."""
        key = (node, domain, tuple(id(c) for c in pod.claims))
        change = self._changes.get(node, 0)
        kept = self._fits.get(key) if self._local else None
        if kept is not None and kept[0] == change and kept[1] == pod.claims:
            return kept[2]
        candidates = self._free_in(node, domain)
        choices = None
        if len(candidates) >= pod.devices and self._enough(pod, candidates):
            order = sorted(candidates, key=self._preference) if self.score else candidates
            choices = allocate_pod(pod, node, order, self.state)
        if self._local:
            self._fits[key] = (change, pod.claims, choices)
        return choices

    def _enough(self, pod: PodClaims, candidates: Sequence[Device]) -> bool:
        """Whether each plain request has as many matching devices as it needs (a quick
        no before the search; selectors rule out whole nodes, such as other products')."""
        for claim in pod.claims:
            for request in claim.requests:
                if request.mode != "ExactCount" or request.alternatives:
                    continue
                if len(self.state.candidates(claim, request, candidates)) < request.count:
                    return False
        return True

    def _bounded(
        self, pod: PodClaims, nodes: Sequence[str], domain: tuple[AttributeValue | None, ...]
    ) -> _Best | None:
        """What the scan of every node finds, visiting nodes by lower bound of their cost
        and stopping when no node left can beat the best one."""
        assert self._bounds is not None
        rank = self._ranks.get(domain)
        if rank is None:
            rank = self._ranks[domain] = {node: i for i, node in enumerate(nodes)}
        level = len(self.gang_attributes)  # the gang levels cost the same on every node
        best: _Best | None = None
        for bound, tier in self._bounds.tiers(pod.devices, rank):
            if best is not None and bound > best[0][level:]:
                break
            for node in tier:
                if best is not None and bound == best[0][level:] and rank[node] > best[1]:
                    break
                best = self._try(pod, node, rank[node], domain, best)
                if best is not None and best[2] == node and best[0][level:] == bound:
                    break  # the tier's bound is met: a later node can only tie, and loses
        return best

    def _preference(self, device: Device) -> tuple[int, int, int]:
        finest = self._groups(device)[-1]
        left = self.free.get(finest, 0)
        return (int(left == self.total[finest]), left, device.index)


def _exact(pod: PodClaims) -> bool:
    """Whether the pod takes exactly ``pod.devices`` devices wherever it goes (no ``All``
    request, no alternatives of other counts), as the bounds assume."""
    return all(
        r.mode == "ExactCount" and not r.alternatives for c in pod.claims for r in c.requests
    )
