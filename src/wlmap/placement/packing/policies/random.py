"""Random fit: any node the pod fits on, uniformly, and any GPU there it fits on.

As the FGD paper's simulator runs it (``-gpusel random``): the node is drawn uniformly from
the feasible nodes; a shared pod then takes a GPU drawn uniformly from the node's GPUs with
enough free share, and a pod asking for whole GPUs takes the lowest-indexed fully free
ones. The draws come from a ``random.Random`` seeded with the run's seed, so a seed always
gives the same placements.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

import numpy as np

from wlmap.placement.packing.cluster_state import ClusterState
from wlmap.placement.packing.pods import Placement, Pod
from wlmap.placement.packing.policies._common import random_gpus


class RandomPolicy:
    """Uniformly random feasible node and GPU (see the module docstring)."""

    name = "random"

    def __init__(self) -> None:
        self._rng = random.Random(0)

    def reset(self, state: ClusterState, workload: Sequence[Pod], seed: int) -> None:
        self._rng = random.Random(f"random-fit:{seed}")

    def place(self, state: ClusterState, pod: Pod) -> Placement | None:
        candidates = np.flatnonzero(state.feasible(pod))
        if len(candidates) == 0:
            return None
        node = int(candidates[self._rng.randrange(len(candidates))])
        return Placement(node, random_gpus(state, node, pod, self._rng))

    def observe(self, state: ClusterState, pod: Pod, placement: Placement) -> None:
        return None


__all__ = ["RandomPolicy"]
