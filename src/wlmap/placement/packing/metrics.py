"""What a simulation measures, and how per-pod records become one row per arrived percent.

After every arriving pod the simulator records the arrived GPU request, the allocated GPU
share, the cluster's fragmentation and the failed pods so far. As in the FGD paper's
analysis, the records are then grouped by *arrived* GPU request as an integer percent of
capacity (0..130, rounded half to even); a row's ratios are means over the pods of its
group, and its counts are those after the group's last pod. A percent no pod landed on
takes the pods within one percent of it, as the published analysis does.

Fragmentation is the FGD measure (``policies.fragmentation``) against the target workload
of the trace's own pod list: the amount is the expected fragmented GPU share in percent of
capacity, the ratio is that share in percent of the idle GPU share.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from wlmap.placement.packing.cluster_state import ClusterState, IntArray
from wlmap.placement.packing.pods import POD_CLASSES, Pod
from wlmap.placement.packing.policies.fragmentation import (
    TargetWorkload,
    fragmentation,
    target_workload,
)

FloatArray = npt.NDArray[np.float64]

MAX_ARRIVED_PERCENT = 130


class FragmentationMeter:
    """The cluster's expected GPU fragmentation, kept current one node at a time."""

    def __init__(self, state: ClusterState, target_pods: Sequence[Pod]) -> None:
        self.target: TargetWorkload = target_workload(target_pods, state.models)
        self.per_node: FloatArray = fragmentation(
            self.target, state.cpu_free, state.gpu_free, state.node_model
        )
        self.total = float(self.per_node.sum())

    def update(self, state: ClusterState, node: int) -> float:
        """Re-measure one node after a placement on it; returns the cluster total."""
        window = slice(node, node + 1)
        value = float(
            fragmentation(
                self.target,
                state.cpu_free[window],
                state.gpu_free[window],
                state.node_model[window],
            )[0]
        )
        self.total += value - self.per_node[node]
        self.per_node[node] = value
        return self.total


@dataclass(frozen=True, slots=True)
class ArrivalRow:
    """The cluster when the arrived GPU request reached ``arrived_pct`` percent of capacity.

    Attributes:
        arrived_pct: arrived GPU request, integer percent of capacity.
        allocation_pct: allocated GPU share, percent of capacity (mean over the group).
        frag_amount_pct: fragmented GPU share, percent of capacity (mean over the group).
        frag_ratio_pct: fragmented share in percent of the idle share (mean over the group).
        arrived_pods: pods arrived so far; ``placed_pods`` of them were placed.
        failed: failed pods so far per class, in ``POD_CLASSES`` order.
    """

    arrived_pct: int
    allocation_pct: float
    frag_amount_pct: float
    frag_ratio_pct: float
    arrived_pods: int
    placed_pods: int
    failed: tuple[int, ...]


def arrival_rows(
    capacity_gpu_milli: int,
    arrived_milli: IntArray,
    allocated_milli: IntArray,
    frag_milli: FloatArray,
    idle_milli: IntArray,
    failed_class: IntArray,
) -> tuple[ArrivalRow, ...]:
    """Group per-pod records (index = arrival order) into rows by arrived percent.

    ``failed_class`` holds, per pod, the index of its class in ``POD_CLASSES`` when it
    failed and -1 when it was placed.
    """
    if len(arrived_milli) == 0:
        return ()
    group = np.round(arrived_milli / capacity_gpu_milli * 100.0).astype(np.int64)
    allocation = allocated_milli / capacity_gpu_milli * 100.0
    amount = frag_milli / capacity_gpu_milli * 100.0
    ratio = np.divide(
        frag_milli * 100.0, idle_milli, out=np.zeros(len(frag_milli)), where=idle_milli > 0
    )
    failed = np.stack(
        [np.cumsum(failed_class == k) for k in range(len(POD_CLASSES))], axis=1
    ).astype(np.int64)
    placed = np.cumsum(failed_class < 0)
    rows: list[ArrivalRow] = []
    for percent in range(MAX_ARRIVED_PERCENT + 1):
        members = np.flatnonzero(group == percent)
        if len(members) == 0:
            members = np.flatnonzero(np.abs(group - percent) <= 1)
            if len(members) == 0:
                continue
        last = int(members[-1])
        rows.append(
            ArrivalRow(
                arrived_pct=percent,
                allocation_pct=float(allocation[members].mean()),
                frag_amount_pct=float(amount[members].mean()),
                frag_ratio_pct=float(ratio[members].mean()),
                arrived_pods=last + 1,
                placed_pods=int(placed[last]),
                failed=tuple(int(v) for v in failed[last]),
            )
        )
    return tuple(rows)


__all__ = ["MAX_ARRIVED_PERCENT", "ArrivalRow", "FragmentationMeter", "arrival_rows"]
