"""GPU-seconds per group (a namespace or a team), kept current in constant time per pod.

A pod counts ``share x (min(end, now) - since)`` seconds towards its group, where
``since`` is when it began to hold its devices (its start; for a team, the later of its
start and the moment the pod's team last changed) and ``end`` when it stopped. Each group
keeps three sums, so a counter is read without visiting its pods:

- ``retired``: seconds of pods that are gone (deleted, or moved to another team), which
  the cluster no longer shows and a restart reads back from the checkpoint;
- ``ended``: seconds of pods still present that have ended;
- ``open_share`` and ``open_since``: the shares of the pods holding devices now, and the
  sum of ``share x since`` over them, so their seconds are ``open_share x now -
  open_since``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

__all__ = ["Holding", "Usage"]


@dataclass(frozen=True, slots=True)
class Holding:
    """One pod's hold on GPUs, as a group counts it: its share, since when, until when."""

    share: float
    since: float
    end: float | None

    def seconds(self, now: float) -> float:
        """GPU-seconds the hold has counted up to ``now``."""
        until = now if self.end is None else min(self.end, now)
        return self.share * max(0.0, until - self.since)


@dataclass
class Usage:
    """GPU-seconds and GPUs held now, per group."""

    retired: dict[str, float] = field(default_factory=dict)
    ended: dict[str, float] = field(default_factory=dict)
    open_share: dict[str, float] = field(default_factory=dict)
    open_since: dict[str, float] = field(default_factory=dict)
    holders: dict[str, int] = field(default_factory=dict)

    def add(self, group: str, hold: Holding) -> None:
        """Count a hold towards ``group``."""
        self.holders[group] = self.holders.get(group, 0) + 1
        if hold.end is None:
            self.open_share[group] = self.open_share.get(group, 0.0) + hold.share
            self.open_since[group] = self.open_since.get(group, 0.0) + hold.share * hold.since
        else:
            self.ended[group] = self.ended.get(group, 0.0) + hold.seconds(hold.end)

    def remove(self, group: str, hold: Holding, *, retire_at: float | None = None) -> None:
        """Stop counting a hold; with ``retire_at``, keep the seconds it counted until then
        (the pod is gone, or leaves the group), so the group's counter never goes down."""
        self.holders[group] -= 1
        if hold.end is None:
            self.open_share[group] -= hold.share
            self.open_since[group] -= hold.share * hold.since
        else:
            self.ended[group] -= hold.seconds(hold.end)
        if retire_at is not None:
            self.retired[group] = self.retired.get(group, 0.0) + hold.seconds(retire_at)
        if not self.holders[group]:
            # no pod left: drop the running sums, whose rounding would otherwise linger
            for sums in (self.holders, self.ended, self.open_share, self.open_since):
                sums.pop(group, None)

    def seconds(self, now: float) -> dict[str, float]:
        """GPU-seconds per group up to ``now`` (groups with retired seconds or pods)."""
        groups = set(self.retired) | set(self.holders)
        return {g: max(0.0, self._seconds(g, now)) for g in sorted(groups)}

    def _seconds(self, group: str, now: float) -> float:
        open_seconds = self.open_share.get(group, 0.0) * now - self.open_since.get(group, 0.0)
        return self.retired.get(group, 0.0) + self.ended.get(group, 0.0) + open_seconds

    def held(self) -> dict[str, float]:
        """GPUs the groups' open holds take now (groups with pods)."""
        return {g: max(0.0, self.open_share.get(g, 0.0)) for g in sorted(self.holders)}

    def restore(self, retired: Mapping[str, float]) -> None:
        """Add retired seconds read back from a checkpoint."""
        for group, seconds in retired.items():
            self.retired[group] = self.retired.get(group, 0.0) + float(seconds)

    def groups(self) -> Iterable[str]:
        """Every group with seconds or pods."""
        return set(self.retired) | set(self.holders)
