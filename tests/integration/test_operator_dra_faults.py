"""Faults, live, of DRA devices on the KWOK cluster: a device that the corpus DRA gang (4
pods, each a claim of 4 MIG devices of one GPU, the gang in one clique) holds is removed
from its ResourceSlice, as a driver does when a GPU fails. The pod holding it is evicted
through the Eviction API; the ReplicaSet makes a replacement, the webhook gates it, and the
controller gives it devices in the gang's clique, with no healthy pod moved; while the
clique has no room it waits, although another clique has, until the device is published
again: that plans it at once, not on the timer of gangs that wait for room (asserted
against that timer). The time from the removal (or the return) to the replacement Running
with its claim allocated is printed."""

from __future__ import annotations

import copy
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.integration.conftest import terminal
from tests.integration.dra_objects import (
    LAYOUT,
    WORKLOAD,
    corpus_objects,
    pod_claims,
    publish,
)
from tests.integration.fakenodes import KwokCluster
from tests.integration.kube import Kube, wait_for
from tests.integration.kwokpods import owned_pods
from tests.integration.operator_process import OperatorProcess, refused_lines
from tests.integration.placing import events, gated, restart_leading, start_as_service_account
from wlmap.operator.placing._slice_faults import DEVICE_FAULT
from wlmap.operator.placing.devices import NARROWED_FROM
from wlmap.operator.runtime.steps import PLACE_AGAIN_SECONDS

# LAYOUT's clique-b holds exactly the gang's 4 GPUs; ROOMY adds a fifth GPU to it
ROOMY = (*LAYOUT, ("clique-b", 1))
PODS = 4
# after the replacement is said to wait, the device is published again this much later:
# a plan the controller's own condition write brings about would otherwise place it
QUIET_SECONDS = 3.0


@pytest.fixture
def placing(
    kwok_cluster: KwokCluster, kwok_namespace: str, tmp_path: Path
) -> Iterator[OperatorProcess]:
    """The operator as its service account with the generated ``rbac --placement`` grants."""
    process = start_as_service_account(kwok_cluster, kwok_namespace, tmp_path)
    try:
        yield process
    finally:
        process.stop()


def _allocated(kube: Kube, namespace: str, pods: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The pods that are Running with every claim allocated."""
    done = []
    for pod in pods:
        if pod["status"].get("phase") != "Running" or pod["metadata"].get("deletionTimestamp"):
            continue
        claims = pod_claims(kube, namespace, pod)
        if claims and all(c.get("status", {}).get("allocation") for c in claims):
            done.append(pod)
    return done


def _devices(kube: Kube, namespace: str, pod: dict[str, Any]) -> list[tuple[str, str]]:
    """(pool, device) of every device the pod's claims were allocated."""
    return [
        (r["pool"], r["device"])
        for claim in pod_claims(kube, namespace, pod)
        for r in claim["status"]["allocation"]["devices"]["results"]
    ]


def _clique(slices: list[dict[str, Any]], pool: str, device: str) -> str:
    found = next(s for s in slices if s["spec"]["pool"]["name"] == pool)
    entry = next(d for d in found["spec"]["devices"] if d["name"] == device)
    return str(entry["attributes"]["cliqueId"]["string"])


def _condition(kube: Kube, namespace: str) -> dict[str, Any] | None:
    found = kube.get("apps/v1", "Deployment", namespace, "pod") or {}
    conditions = (found.get("status") or {}).get("conditions") or ()
    return next((c for c in conditions if c["type"] == "WlmapPlacement"), None)


def _gang(kube: Kube, namespace: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Create the corpus Deployment; its ReplicaSet and its 4 pods once placed and Running."""
    template, deployment = corpus_objects(namespace)
    kube.create(template)
    kube.create(deployment)
    replica_set = wait_for(
        lambda: next(iter(kube.list("apps/v1", "ReplicaSet", namespace)), None),
        "the Deployment's ReplicaSet",
    )

    def placed() -> list[dict[str, Any]]:
        found = _allocated(kube, namespace, owned_pods(kube, namespace, replica_set))
        return found if len(found) == PODS else []

    pods = wait_for(placed, "4 pods Running with their claims allocated", timeout=120)
    return replica_set, pods


Strike = tuple[
    dict[str, Any], set[str], dict[str, Any], dict[str, str], dict[str, Any], tuple[str, str]
]


def _strike(kube: Kube, namespace: str, slices: list[dict[str, Any]]) -> Strike:
    """The placed gang and the device a fault will take: the ReplicaSet, its pods' names,
    the pod hit (the first by name), the others' nodes, the slice holding the pod's first
    device, and that device (pool, name)."""
    replica_set, pods = _gang(kube, namespace)
    hit = min(pods, key=lambda p: p["metadata"]["name"])
    healthy = {p["metadata"]["name"]: p["spec"]["nodeName"] for p in pods if p is not hit}
    pool, device = _devices(kube, namespace, hit)[0]
    held = next(s for s in slices if s["spec"]["pool"]["name"] == pool)
    old = {p["metadata"]["name"] for p in pods}
    return replica_set, old, hit, healthy, held, (pool, device)


def _new(kube: Kube, namespace: str, owner: dict[str, Any], old: set[str]) -> list[dict[str, Any]]:
    return [p for p in owned_pods(kube, namespace, owner) if p["metadata"]["name"] not in old]


def _waits(kube: Kube, namespace: str, owner: dict[str, Any], old: set[str]) -> None:
    """The replacement stays gated, its claim as the template made it, and the condition
    names the gang's clique."""
    said = wait_for(
        lambda: (c := _condition(kube, namespace)) and c["reason"] == "ReplacementWaiting" and c,
        "the Deployment's condition saying the replacement waits",
        timeout=90,
    )
    assert "cliqueId=clique-b" in said["message"], said
    (waiting,) = _new(kube, namespace, owner, old)
    assert gated(waiting) and not waiting["spec"].get("nodeName")
    claims = pod_claims(kube, namespace, waiting)
    assert not any((c["metadata"].get("annotations") or {}).get(NARROWED_FROM) for c in claims)


def _remove(kube: Kube, held: dict[str, Any], device: str) -> None:
    """The driver republishes the slice without the device."""
    kept = [d for d in held["spec"]["devices"] if d["name"] != device]
    kube.patch(held, {"spec": {"devices": kept}})


def _replaced_in_clique(
    kube: Kube, namespace: str, slices: list[dict[str, Any]], strike: Strike
) -> dict[str, Any]:
    """The replacement once Running: given clique-b devices other than the lost one, the
    pod hit gone, no healthy pod moved."""
    replica_set, old, hit, healthy, _, (pool, device) = strike
    found: list[dict[str, Any]] = wait_for(
        lambda: _allocated(kube, namespace, _new(kube, namespace, replica_set, old)),
        "the replacement Running",
        timeout=120,
        interval=0.1,
    )
    (new,) = found
    chosen = _devices(kube, namespace, new)
    assert {_clique(slices, p, d) for p, d in chosen} == {"clique-b"}
    assert (pool, device) not in chosen
    now = {p["metadata"]["name"]: p for p in owned_pods(kube, namespace, replica_set)}
    assert hit["metadata"]["name"] not in now
    assert {n: now[n]["spec"]["nodeName"] for n in healthy} == healthy
    return new


@pytest.mark.skipif(not WORKLOAD.is_file(), reason="the shared corpus is not present")
@pytest.mark.parametrize("room", [True, False], ids=["room-in-clique", "clique-full"])
def test_device_gone_from_slice(
    kwok_cluster: KwokCluster,
    kwok_namespace: str,
    placing: OperatorProcess,
    pytestconfig: pytest.Config,
    room: bool,
) -> None:
    """A pod whose device leaves its slice is replaced in the gang's clique: with a free
    GPU left there the replacement gets it; with none it waits (clique-a's 3 free GPUs
    are not given) until the device is published again."""
    kube = kwok_cluster.kube
    layout = ROOMY if room else LAYOUT
    slices = publish(kube, sorted(kwok_cluster.nodes())[: len(layout)], layout, kwok_namespace)
    try:
        replica_set, old, hit, healthy, held, (pool, device) = _strike(kube, kwok_namespace, slices)
        assert _clique(slices, pool, device) == "clique-b", placing.output()[-3000:]
        _remove(kube, held, device)
        started = time.monotonic()
        if not room:
            _waits(kube, kwok_namespace, replica_set, old)
            time.sleep(QUIET_SECONDS)  # the plans its own writes bring about are over
            kube.patch(held, {"spec": {"devices": held["spec"]["devices"]}})  # repaired
            started = time.monotonic()
        seen: dict[str, float] = {}

        def replaced() -> list[dict[str, Any]]:
            new = _new(kube, kwok_namespace, replica_set, old)
            if new:
                seen.setdefault("replacement created", time.monotonic())
            return _allocated(kube, kwok_namespace, new)

        (new,) = wait_for(replaced, "the replacement Running", timeout=120, interval=0.1)
        elapsed = time.monotonic() - started
        steps = ", ".join(f"{k} +{max(0.0, t - started):.1f} s" for k, t in seen.items())
        (terminal(pytestconfig) or print)(
            f"DRA device {pool}/{device} {'removed' if room else 'published again'}: "
            f"replacement Running with its claim allocated {elapsed:.2f} s later ({steps})"
        )
        if not room:  # woken by the device's return, not by the timer of waiting gangs
            assert elapsed < PLACE_AGAIN_SECONDS / 3, placing.output()[-3000:]
        chosen = _devices(kube, kwok_namespace, new)
        assert {_clique(slices, p, d) for p, d in chosen} == {"clique-b"}
        assert room is ((pool, device) not in chosen)
        now = {p["metadata"]["name"]: p for p in owned_pods(kube, kwok_namespace, replica_set)}
        assert hit["metadata"]["name"] not in now  # evicted, gone
        for name, node in healthy.items():  # no healthy pod moved or stopped
            assert now[name]["spec"]["nodeName"] == node
            assert not now[name]["metadata"].get("deletionTimestamp")
        said = wait_for(
            lambda: (c := _condition(kube, kwok_namespace)) and c["reason"] == "Replaced" and c,
            "the Deployment's condition saying the pod was replaced",
        )
        assert said["status"] == "True" and "cliqueId=clique-b" in said["message"], said
        fault = events(kube, kwok_namespace, DEVICE_FAULT)
        assert fault and f"{pool}/{device}" in fault[0]["message"], fault
    finally:
        for obj in slices:
            kube.delete(obj)
    assert refused_lines(placing.output()) == []


@pytest.mark.skipif(not WORKLOAD.is_file(), reason="the shared corpus is not present")
def test_device_removed_while_the_operator_was_away(
    kwok_cluster: KwokCluster,
    kwok_namespace: str,
    placing: OperatorProcess,
    pytestconfig: pytest.Config,
) -> None:
    """The operator stopped, a device of a placed pod removed from its slice, the operator
    started again: the pod is evicted and its replacement given the clique's fifth GPU,
    gated by the webhook as at any other time (never another clique's)."""
    kube = kwok_cluster.kube
    slices = publish(kube, sorted(kwok_cluster.nodes())[: len(ROOMY)], ROOMY, kwok_namespace)
    try:
        strike = _strike(kube, kwok_namespace, slices)
        _, _, _, _, held, (pool, device) = strike
        placing.stop()
        _remove(kube, held, device)  # while no operator watches
        started = time.monotonic()
        placing.start()
        new = _replaced_in_clique(kube, kwok_namespace, slices, strike)
        (terminal(pytestconfig) or print)(
            f"DRA device {pool}/{device} removed while the operator was stopped: replacement "
            f"Running {time.monotonic() - started:.2f} s after the operator was started again"
        )
        claims = pod_claims(kube, kwok_namespace, new)  # planned: gated at creation
        assert all((c["metadata"].get("annotations") or {}).get(NARROWED_FROM) for c in claims)
        said = wait_for(
            lambda: (c := _condition(kube, kwok_namespace)) and c["reason"] == "Replaced" and c,
            "the Deployment's condition saying the pod was replaced",
        )
        assert "cliqueId=clique-b" in said["message"], said
        (fault,) = events(kube, kwok_namespace, DEVICE_FAULT)
        assert f"{pool}/{device}" in fault["message"], fault
        assert "when the operator started" in fault["message"], fault
    finally:
        for obj in slices:
            kube.delete(obj)
    assert refused_lines(placing.output()) == []


LEASE_SECONDS = 5


@pytest.mark.skipif(not WORKLOAD.is_file(), reason="the shared corpus is not present")
def test_device_removed_while_no_replica_led_is_found_on_taking_over(
    kwok_cluster: KwokCluster,
    kwok_namespace: str,
    placing: OperatorProcess,
    pytestconfig: pytest.Config,
) -> None:
    """The leading replica dies with its lease held, a device of a placed pod is removed
    from its slice, and a new replica starts while the lease is still the dead one's: it
    follows (its start-up check is the leader's to do), sees the removal without acting,
    and when it takes the lease over it evicts the pod, whose replacement is placed in
    the gang's clique as at any other time."""
    kube = kwok_cluster.kube
    slices = publish(kube, sorted(kwok_cluster.nodes())[: len(ROOMY)], ROOMY, kwok_namespace)
    try:
        restart_leading(placing, LEASE_SECONDS)
        strike = _strike(kube, kwok_namespace, slices)
        _, _, _, _, held, (pool, device) = strike
        placing.kill()  # its lease stays held until it expires
        placing.start()  # a new replica: following while the dead one's lease lasts
        _remove(kube, held, device)
        removed = time.monotonic()
        _replaced_in_clique(kube, kwok_namespace, slices, strike)
        (terminal(pytestconfig) or print)(
            f"DRA device {pool}/{device} removed while no replica led: replacement Running "
            f"{time.monotonic() - removed:.2f} s after the removal (lease {LEASE_SECONDS} s)"
        )
        assert placing.output().count("following: another replica holds the lease") == 1
        (fault,) = events(kube, kwok_namespace, DEVICE_FAULT)
        assert f"{pool}/{device}" in fault["message"], fault
        assert "when this replica took over" in fault["message"], fault
    finally:
        for obj in slices:
            kube.delete(obj)
    assert refused_lines(placing.output()) == []


@pytest.mark.skipif(not WORKLOAD.is_file(), reason="the shared corpus is not present")
def test_a_device_its_driver_tainted_is_given_to_no_pod(
    kwok_cluster: KwokCluster, kwok_namespace: str, placing: OperatorProcess
) -> None:
    """One of clique-b's five GPUs has a device tainted NoSchedule (a driver's word that
    it is unhealthy): the scheduler's allocator gives it to no claim, so the plan must
    not either; the gang is placed on clique-b's four other GPUs, all Running."""
    kube = kwok_cluster.kube
    slices = publish(kube, sorted(kwok_cluster.nodes())[: len(ROOMY)], ROOMY, kwok_namespace)
    try:
        tainted = next(
            s
            for s in slices
            if s["spec"]["devices"][0]["attributes"]["cliqueId"]["string"] == "clique-b"
        )
        devices = copy.deepcopy(tainted["spec"]["devices"])
        devices[0]["taints"] = [{"key": "gpu.nvidia.com/unhealthy", "effect": "NoSchedule"}]
        kept = kube.patch(tainted, {"spec": {"devices": devices}})
        assert kept["spec"]["devices"][0].get("taints"), "the API server keeps device taints"
        _, pods = _gang(kube, kwok_namespace)
        pool = tainted["spec"]["pool"]["name"]
        used = {p for pod in pods for p, _ in _devices(kube, kwok_namespace, pod)}
        assert pool not in used
        assert {
            _clique(slices, p, d) for pod in pods for p, d in _devices(kube, kwok_namespace, pod)
        } == {"clique-b"}
    finally:
        for obj in slices:
            kube.delete(obj)
    assert refused_lines(placing.output()) == []


@pytest.mark.skipif(not WORKLOAD.is_file(), reason="the shared corpus is not present")
def test_a_device_tainted_no_execute_has_its_pod_replaced_in_the_clique(
    kwok_cluster: KwokCluster,
    kwok_namespace: str,
    placing: OperatorProcess,
    pytestconfig: pytest.Config,
) -> None:
    """The driver taints a placed pod's device NoExecute (its pods must go) and keeps
    listing it: the operator evicts the pod, and its replacement is given untainted
    devices of the gang's clique."""
    kube = kwok_cluster.kube
    slices = publish(kube, sorted(kwok_cluster.nodes())[: len(ROOMY)], ROOMY, kwok_namespace)
    try:
        strike = _strike(kube, kwok_namespace, slices)
        _, _, _, _, held, (pool, device) = strike
        devices = copy.deepcopy(held["spec"]["devices"])
        for entry in devices:
            if entry["name"] == device:
                entry["taints"] = [{"key": "gpu.nvidia.com/xid", "effect": "NoExecute"}]
        kube.patch(held, {"spec": {"devices": devices}})
        tainted = time.monotonic()
        _replaced_in_clique(kube, kwok_namespace, slices, strike)
        (terminal(pytestconfig) or print)(
            f"DRA device {pool}/{device} tainted NoExecute: replacement Running "
            f"{time.monotonic() - tainted:.2f} s later"
        )
        faults = events(kube, kwok_namespace, DEVICE_FAULT)
        assert any(f"{pool}/{device}" in f["message"] for f in faults), faults
    finally:
        for obj in slices:
            kube.delete(obj)
    assert refused_lines(placing.output()) == []
