"""What a placement policy is, and the registry of policies by name.

A policy sees the cluster state and one pod at a time and answers with a placement or
None (the pod cannot be placed and counts as failed). The simulator owns the loop: it calls
``reset`` once per run, then for every pod ``place``, ``ClusterState.assign`` and
``observe``. Policies are created by name from ``POLICIES``; the factories import their
module on first use, so listing the names loads nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from importlib import import_module
from typing import Protocol, runtime_checkable

from wlmap.placement.packing.cluster_state import ClusterState
from wlmap.placement.packing.pods import Placement, Pod


@runtime_checkable
class Policy(Protocol):
    """A placement policy.

    Ties are broken deterministically: first by a per-seed random permutation of the node
    order (the published experiments prefix node names with such a permutation, which
    decides ties), then by GPU index. Each policy documents its own rules.
    """

    name: str

    def reset(self, state: ClusterState, workload: Sequence[Pod], seed: int) -> None:
        """Prepare for a run on ``state``; ``workload`` is the full pod list of the run.

        A policy may derive a target workload from the pods' distribution (FGD does) but
        must not use their order.
        """

    def place(self, state: ClusterState, pod: Pod) -> Placement | None:
        """Where the pod should go, or None when no node can take it."""

    def observe(self, state: ClusterState, pod: Pod, placement: Placement) -> None:
        """Called after the placement was applied to ``state``; for policies with caches."""


def _factory(module: str, attribute: str) -> Callable[[], Policy]:
    """A factory that imports ``module`` when first called and builds ``attribute``."""

    def build() -> Policy:
        made: Policy = getattr(import_module(module), attribute)()
        return made

    build.__qualname__ = f"{module}.{attribute}"
    return build


_BASE = "wlmap.placement.packing.policies"

POLICIES: dict[str, Callable[[], Policy]] = {
    "random": _factory(f"{_BASE}.random", "RandomPolicy"),
    "dotproduct": _factory(f"{_BASE}.dotproduct", "DotProductPolicy"),
    "clustering": _factory(f"{_BASE}.clustering", "ClusteringPolicy"),
    "packing": _factory(f"{_BASE}.gpu_packing", "PackingPolicy"),
    "bestfit": _factory(f"{_BASE}.bestfit", "BestFitPolicy"),
    "fgd": _factory(f"{_BASE}.fgd", "FGDPolicy"),
    "wlmap": _factory(f"{_BASE}.wlmap_policy", "WlmapPolicy"),
}
"""Policy factories by name."""


def make_policy(name: str) -> Policy:
    """A new policy by registry name; raises ValueError naming the known ones."""
    try:
        factory = POLICIES[name]
    except KeyError:
        known = ", ".join(sorted(POLICIES))
        raise ValueError(f"unknown placement policy {name!r}; expected one of: {known}") from None
    return factory()


__all__ = ["POLICIES", "Policy", "make_policy"]
