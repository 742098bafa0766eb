"""The gated DRA gangs that wait for devices, and which of them a device's return wakes.

A DRA gang that does not fit (a fresh gang with no room, or the replacements of a gang
whose domain is full, ``ReplacementWaiting``) is planned again on a timer
(``steps.PLACE_AGAIN_SECONDS``): pods finishing elsewhere announce nothing to it. A device
published again, or a new slice, does announce itself: the slice watch
(:mod:`._slice_faults`) hands the drivers of the devices no slice listed before to
:meth:`DeviceWaits.wake`, and the gangs waiting for devices of those drivers are planned
again at once, in one batch per ``WAKE_DELAY_SECONDS``: a driver republishing many slices
(a node's restart, a new node) brings one plan per waiting gang, not one per slice.

A gang waits for the drivers whose devices its claims' requests may use (any of them,
free or not, when it was planned); one whose requests matched no device at all waits for
any driver. Pools are no filter: a new node brings its devices in a pool never seen.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

__all__ = ["WAKE_DELAY_SECONDS", "DeviceWaits"]

WAKE_DELAY_SECONDS = 0.5  # slice events within this long wake a waiting gang once


class DeviceWaits:
    """The workloads whose gated DRA gangs wait for devices, by uid, and those due to be
    planned again because devices they may use were added."""

    def __init__(self) -> None:
        self._waiting: dict[str, tuple[Mapping[str, Any], frozenset[str]]] = {}
        self._due: dict[str, Mapping[str, Any]] = {}
        self.woken = 0  # plans asked for by added devices, after coalescing

    def wait(self, obj: Mapping[str, Any], drivers: Iterable[str]) -> None:
        """Record that the workload's gang waits for devices of ``drivers`` (none: of any
        driver)."""
        self._waiting[_uid(obj)] = (obj, frozenset(drivers))

    def done(self, uid: str) -> None:
        """The workload no longer waits for devices (placed, released, or deleted)."""
        self._waiting.pop(uid, None)
        self._due.pop(uid, None)

    def wake(self, drivers: Iterable[str]) -> bool:
        """Mark the workloads waiting for devices of ``drivers`` due; True when none was
        due before (the caller then plans them after ``WAKE_DELAY_SECONDS``, and the
        slice events meanwhile join that batch)."""
        added = frozenset(drivers)
        idle = not self._due
        for uid, (obj, wanted) in self._waiting.items():
            if not wanted or wanted & added:
                self._due[uid] = obj
        return idle and bool(self._due)

    def take_due(self) -> list[tuple[str, Mapping[str, Any]]]:
        """The workloads due to be planned again (uid, workload); none is due after."""
        due, self._due = self._due, {}
        self.woken += len(due)
        return list(due.items())

    def __contains__(self, uid: object) -> bool:
        return uid in self._waiting


def _uid(obj: Mapping[str, Any]) -> str:
    return str((obj.get("metadata") or {}).get("uid"))
