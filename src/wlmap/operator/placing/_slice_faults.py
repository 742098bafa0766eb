"""Faults, live, of DRA devices: a device a placed gang holds that disappears from its
ResourceSlice (the driver republished the slice without it, or deleted the slice).

A DRA driver says a device is gone by publishing its pool again without it: no condition,
no taint on the node. The controller watches ResourceSlices and keeps the devices each
one lists. When an event leaves devices that no slice lists any more, the allocated
ResourceClaims holding them are found (their allocation results name driver, pool and
device) and the pods reserving those claims (``status.reservedFor``) are the pods hit.
Those of opted-in workloads are evicted through the Eviction API, as the pods of a faulty
node are (:func:`.placement_faults.evict_gangs`: budgets honoured, a refusal reported and
tried again while the devices stay gone). The workload's controller makes replacements,
the webhook gates them, the claim controller makes their claims, and the DRA placement
(:mod:`.devices`) plans them inside the gang's domain: devices sharing the gang
attributes' values with the devices its healthy pods hold. While that domain has no room
they wait; devices listed again (or a new slice) plan the gangs waiting for devices of
their driver again at once (:mod:`._device_waits`).

A device that moves to another slice of its pool (a driver splitting or regrouping its
slices) is not gone: only devices no slice lists count. A device its slice taints
``NoExecute`` (the driver's word that its pods must go) counts as not listed; one tainted
``NoSchedule`` keeps its pods but is given to no replacement (the planner leaves tainted
devices out, as the scheduler does). Devices removed while the
operator was not running are found when it starts, before the watch, and those removed
while no replica wrote (a leader gone, its lease not yet expired) when a follower takes
the lease over: the devices that allocated claims hold and no slice lists are gone, and
their holders evicted alike.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Iterable, Mapping, Set
from typing import Any

import kopf

from wlmap.operator.core.events import ReconcileWanted
from wlmap.operator.core.work import retrying, submit
from wlmap.operator.placing._device_waits import WAKE_DELAY_SECONDS
from wlmap.operator.placing.placement_faults import evict_gangs, register_node_watch
from wlmap.operator.placing.state import PlacingState
from wlmap.sources.cluster import ApiError

__all__ = [
    "DEVICE_FAULT",
    "added_devices",
    "gone_devices",
    "register_fault_watches",
    "register_slice_watch",
    "slice_devices",
    "unlisted_devices",
]

log = logging.getLogger("wlmap.operator")
DEVICE_FAULT = "DeviceFault"  # the reason of the Event and condition
_RESOURCE = "/apis/resource.k8s.io/v1"
Key = tuple[str, str, str]  # (driver, pool, device), as an allocation result names one
WEBHOOK_WAIT_SECONDS = 60.0  # at start, for the gating webhook to serve
WEBHOOK_SETTLE_SECONDS = 1.0  # then for the API server to call it (a managed config's CA)


def slice_devices(obj: Mapping[str, Any]) -> frozenset[Key]:
    """The devices a ResourceSlice lists, by the key allocation results use; a device
    tainted ``NoExecute`` (its pods must go) counts as not listed."""
    spec = obj.get("spec") or {}
    driver = str(spec.get("driver"))
    pool = str((spec.get("pool") or {}).get("name"))
    return frozenset(
        (driver, pool, str(d.get("name")))
        for d in spec.get("devices") or ()
        if d.get("name") and not _evicting(d)
    )


def _evicting(device: Mapping[str, Any]) -> bool:
    taints = device.get("taints") or (device.get("basic") or {}).get("taints") or ()
    return any(isinstance(t, Mapping) and t.get("effect") == "NoExecute" for t in taints)


def gone_devices(
    slices: Mapping[str, Set[Key]], name: str, now: Set[Key] | None
) -> tuple[dict[str, frozenset[Key]], frozenset[Key]]:
    """The slices once slice ``name`` lists ``now`` (None: deleted), and the devices it
    listed before that no slice lists any more."""
    before = slices.get(name, frozenset())
    after = {k: frozenset(v) for k, v in slices.items() if k != name}
    if now is not None:
        after[name] = frozenset(now)
    removed = before - (now or frozenset())
    if removed:
        listed = frozenset().union(*after.values()) if after else frozenset()
        removed = removed - listed
    return after, frozenset(removed)


def added_devices(slices: Mapping[str, Set[Key]], now: Set[Key] | None) -> frozenset[Key]:
    """The devices a slice lists ``now`` that no slice listed before (published again,
    or new): those a gang waiting for room may be given."""
    listed = frozenset().union(*slices.values()) if slices else frozenset()
    return frozenset(now or ()) - listed


def register_fault_watches(registry: kopf.OperatorRegistry, state: PlacingState) -> None:
    """Watch what can hit a placed gang: nodes, and the devices of ResourceSlices."""
    register_node_watch(registry, state)
    register_slice_watch(registry, state)


def register_slice_watch(registry: kopf.OperatorRegistry, state: PlacingState) -> None:
    """Watch ResourceSlices; evict the pods of placed gangs whose devices disappear."""
    slices: dict[str, frozenset[Key]] = {}
    gone: set[Key] = set()  # devices no slice lists, while that lasts

    @kopf.on.event(
        "resource.k8s.io", "v1", "resourceslices", id="placement-device-faults", registry=registry
    )
    async def on_slice(event: Mapping[str, Any], **_: Any) -> None:
        nonlocal slices
        obj = event.get("object") or {}
        name = str((obj.get("metadata") or {}).get("name"))
        now = None if event.get("type") == "DELETED" else slice_devices(obj)
        added = added_devices(slices, now)
        slices, removed = gone_devices(slices, name, now)
        gone.difference_update(now or ())  # listed again: no longer gone
        if added and state.writes:
            _wake(state, added)
        if removed and state.writes:
            _evict_later(state, removed, _described(name, removed, now is None), gone)

    async def check_unlisted(when: str) -> None:
        """The devices allocated claims hold that no slice lists were removed while no
        replica of the operator watched; their holders are evicted."""
        assert state.cluster is not None
        cluster = state.cluster
        found: list[frozenset[Key]] = []

        async def read() -> None:
            listed = await cluster.request("GET", f"{_RESOURCE}/resourceslices")
            claims = await cluster.request("GET", f"{_RESOURCE}/resourceclaims")
            found.append(unlisted_devices(listed.get("items") or (), claims.get("items") or ()))

        if not await retrying(state, read) or not found:
            log.warning("cannot tell which devices were removed while no replica watched")
            return
        if found[-1]:
            described = _described(None, found[-1], False, when)
            _evict_later(state, found[-1], described, gone, after_webhook=True)

    @kopf.on.startup(registry=registry)
    async def removed_while_away(**_: Any) -> None:
        """Before the watch starts: devices removed while the operator was not running."""
        if state.cluster is None:  # the operator's own startup has not connected yet
            raise kopf.TemporaryError("not connected to the cluster yet", delay=1)
        if state.writes:
            await check_unlisted("when the operator started")

    # A follower's watch saw slice events it did not act on; when it takes the lease
    # over, devices removed while no replica wrote have holders to evict.
    state.takeover.append(lambda: check_unlisted("when this replica took over"))


def unlisted_devices(
    slices: Iterable[Mapping[str, Any]], claims: Iterable[Mapping[str, Any]]
) -> frozenset[Key]:
    """The devices the allocated ``claims`` hold that none of the ``slices`` lists."""
    listed = frozenset().union(*(slice_devices(s) for s in slices))
    return frozenset(k for c in claims for k in _allocated(c) if k not in listed)


def _allocated(claim: Mapping[str, Any]) -> list[Key]:
    allocation = (claim.get("status") or {}).get("allocation") or {}
    results = (allocation.get("devices") or {}).get("results") or ()
    return [(str(r.get("driver")), str(r.get("pool")), str(r.get("device"))) for r in results]


def _evict_later(
    state: PlacingState,
    removed: frozenset[Key],
    described: str,
    gone: set[Key],
    *,
    after_webhook: bool = False,
) -> None:
    """Evict, beside the caller, the placed pods holding the ``removed`` devices; refused
    evictions are tried again while any of them is still in ``gone``. At start
    (``after_webhook``), only once the gating webhook serves: a replacement made before
    would not be gated, and kube-scheduler would place it outside the gang's domain."""
    gone.update(removed)
    log.warning("%s: evicting the placed pods holding them", described)

    def lasting() -> bool:
        return bool(removed & gone)

    async def evict() -> None:
        await _evict_holders(state, removed, described, lasting)

    async def when_gated() -> None:
        try:
            await asyncio.wait_for(state.webhook_serving.wait(), WEBHOOK_WAIT_SECONDS)
        except TimeoutError:
            log.warning("the gating webhook is not serving: evicting all the same")
        await asyncio.sleep(WEBHOOK_SETTLE_SECONDS)  # the API server's copy of its config
        await _retried(state, evict)

    state.spawn(when_gated() if after_webhook else _retried(state, evict))


def _wake(state: PlacingState, added: Set[Key]) -> None:
    """Plan again, shortly and once for a burst of slice events, the gangs waiting for
    devices of the drivers that added some."""
    if state.device_waits.wake({driver for driver, _, _ in added}):
        state.spawn(_plan_woken(state))


async def _plan_woken(state: PlacingState) -> None:
    await asyncio.sleep(WAKE_DELAY_SECONDS)  # the rest of the burst joins
    due = state.device_waits.take_due()
    if due:
        log.info("devices added: planning %d waiting gang(s) again", len(due))
    for uid, obj in due:
        state.spawn(submit(state, uid, _reconcile(state, obj)))


def _reconcile(state: PlacingState, obj: Mapping[str, Any]) -> Callable[[], Awaitable[None]]:
    """The step that asks the runtime to reconcile and place a woken gang's workload."""
    return lambda: state.events.publish(ReconcileWanted(obj))


async def _retried(state: PlacingState, step: Callable[[], Awaitable[None]]) -> None:
    await retrying(state, step)


def _described(name: str | None, removed: Set[Key], deleted: bool, when: str = "") -> str:
    """The fault in words; ``name`` None: found ``when`` (at start, on taking over),
    listed by no slice."""
    devices = ", ".join(f"{pool}/{device}" for _, pool, device in sorted(removed))
    if name is None:
        return f"devices {devices} listed by no ResourceSlice (or tainted NoExecute) {when}"
    where = (
        f"ResourceSlice {name} was deleted"
        if deleted
        else f"removed from ResourceSlice {name} (or tainted NoExecute)"
    )
    return f"devices {devices} {'gone: ' if deleted else ''}{where}"


async def _evict_holders(
    state: PlacingState, removed: Set[Key], fault: str, lasting: Callable[[], bool]
) -> None:
    """Evict, per workload, the pods of opted-in workloads reserving a claim that holds
    one of the ``removed`` devices."""
    assert state.cluster is not None
    claims = await state.cluster.request("GET", f"{_RESOURCE}/resourceclaims")
    hit: dict[tuple[str, str], None] = {}
    for claim in claims.get("items") or ():
        if not any(k in removed for k in _allocated(claim)):
            continue
        namespace = str((claim.get("metadata") or {}).get("namespace"))
        for consumer in (claim.get("status") or {}).get("reservedFor") or ():
            if consumer.get("resource") == "pods" and not consumer.get("apiGroup"):
                hit[(namespace, str(consumer.get("name")))] = None
    pods: list[dict[str, Any]] = []
    for namespace, name in hit:
        if not state.serves_namespace(namespace):
            continue
        try:
            found = await state.cluster.request(
                "GET", f"/api/v1/namespaces/{namespace}/pods/{name}"
            )
        except ApiError as exc:
            if exc.code == 404:
                continue
            raise
        pod = {"apiVersion": "v1", "kind": "Pod", **found}
        meta = pod.get("metadata") or {}
        if meta.get("deletionTimestamp") or not meta.get("ownerReferences"):
            continue
        pods.append(pod)
    await evict_gangs(state, pods, fault, DEVICE_FAULT, lasting)
