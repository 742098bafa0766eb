"""GPU fragmentation of nodes measured against a target workload (the FGD measure).

The measure comes from "Beware of Fragmentation" (USENIX ATC '23). A node's free GPU
capacity is *fragmented* for a pod shape when that shape cannot use it. For one target
shape ``p`` and one node, the fragment in GPU-milli is:

- all free GPU-milli of the node when the shape asks for no GPU (a CPU-only pod never
  uses a GPU), when the node's GPU model is not one the shape accepts, when the node has
  too little free CPU for the shape, or when fewer than ``num_gpu`` of its GPUs have at
  least ``gpu_milli`` free;
- otherwise, the free GPU-milli of the GPUs that have less than ``gpu_milli`` free.

Memory does not take part (the published measure ignores it). The node's expected
fragmentation is the popularity-weighted sum over the target shapes. The target workload
is the most popular pod shapes, CPU-only pods included, taken in decreasing popularity
until they cover ``coverage`` (95 %) of the pods, with weights renormalised to sum to 1.

Everything here is vectorised over a batch of node states: ``fragmentation`` takes
``k`` states at once (free CPU, free milli per GPU, model index) and returns ``k`` values.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
import numpy.typing as npt

from ..pods import Pod

__all__ = ["PodShape", "TargetWorkload", "fragmentation", "pod_shape", "target_workload"]

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]

PodShape = tuple[int, int, int, tuple[str, ...]]
"""What the measure sees of a pod: (cpu_milli, gpu_milli, num_gpu, accepted models sorted; () = any)."""


def pod_shape(pod: Pod) -> PodShape:
    """The shape of ``pod`` as the measure sees it (memory is not part of it)."""
    models = tuple(sorted(pod.gpu_models)) if pod.gpu_models else ()
    return (pod.cpu_milli, pod.gpu_milli, pod.num_gpu, models)


@dataclass(frozen=True)
class TargetWorkload:
    """Target pod shapes and their weights, as arrays ready for the measure.

    Attributes:
        shapes: the shapes, most popular first.
        cpu_milli, gpu_milli, num_gpu: per-shape requests, shape (T,).
        weight: per-shape weight, summing to 1, shape (T,).
        access: ``access[t, m]`` is True when shape ``t`` accepts GPU model index ``m``;
            the last column stands for "no GPU model" (index -1) and is always False
            for GPU shapes.
    """

    shapes: tuple[PodShape, ...]
    cpu_milli: IntArray
    gpu_milli: IntArray
    num_gpu: IntArray
    weight: FloatArray
    access: npt.NDArray[np.bool_]


def target_workload(
    pods: Sequence[Pod],
    models: Sequence[str],
    *,
    coverage: float = 0.95,
    weighting: Literal["count", "gpu"] = "count",
) -> TargetWorkload:
    """Build the target workload from a pod list.

    Shapes are counted (``weighting="count"``, the published rule) or weighted by their GPU
    demand plus one CPU-only share (``"gpu"``: a shape counts ``1 + num_gpu * gpu_milli /
    1000`` per pod). They are ranked by decreasing weight; equal weights rank the larger
    shape first (CPU, then GPU share, then GPU count, then model list, compared in that
    order), which is the published order. Shapes are taken until their cumulative weight
    reaches ``coverage`` of the total, then renormalised.

    Args:
        pods: the workload whose shape distribution defines the target.
        models: the cluster's GPU models; model indices refer to this order.
        coverage: share of the pods (or weight) the kept shapes must cover, in (0, 1].
        weighting: how a pod counts towards its shape's popularity.

    Returns:
        The target workload; empty arrays when ``pods`` is empty.
    """
    counts: dict[PodShape, float] = {}
    for pod in pods:
        share = 1.0 if weighting == "count" else 1.0 + pod.num_gpu * pod.gpu_milli / 1000
        key = pod_shape(pod)
        counts[key] = counts.get(key, 0.0) + share
    total = sum(counts.values())
    ranked = sorted(
        counts.items(),
        key=lambda kv: (kv[1], kv[0][0], kv[0][1], kv[0][2], "|".join(kv[0][3])),
        reverse=True,
    )
    kept: list[tuple[PodShape, float]] = []
    covered = 0.0
    for shape, count in ranked:
        if covered >= coverage * total:
            break
        kept.append((shape, count))
        covered += count
    model_index = {m: i for i, m in enumerate(models)}
    access = np.zeros((len(kept), len(models) + 1), dtype=np.bool_)
    for t, (shape, _) in enumerate(kept):
        if not shape[3]:
            access[t, : len(models)] = True
        else:
            for m in shape[3]:
                if m in model_index:
                    access[t, model_index[m]] = True
    return TargetWorkload(
        shapes=tuple(s for s, _ in kept),
        cpu_milli=np.array([s[0] for s, _ in kept], dtype=np.int64),
        gpu_milli=np.array([s[1] for s, _ in kept], dtype=np.int64),
        num_gpu=np.array([s[2] for s, _ in kept], dtype=np.int64),
        weight=np.array([c / covered for _, c in kept], dtype=np.float64),
        access=access,
    )


def fragmentation(
    target: TargetWorkload, cpu_free: IntArray, gpu_free: IntArray, node_model: IntArray
) -> FloatArray:
    """Expected GPU fragmentation (GPU-milli) of ``k`` node states.

    Args:
        target: the target workload.
        cpu_free: free CPU milli per state, shape (k,).
        gpu_free: free milli per GPU, shape (k, G); slots below 0 are absent GPUs.
        node_model: GPU model index per state, -1 for no GPU, shape (k,).

    Returns:
        Popularity-weighted fragmented GPU-milli per state, shape (k,).
    """
    free = np.maximum(gpu_free, 0)
    total = free.sum(axis=1)
    if target.weight.size == 0:
        return np.zeros(len(free), dtype=np.float64)
    # usable[k, t, g]: GPU g of state k has room for one GPU of shape t.
    usable = free[:, None, :] >= target.gpu_milli[None, :, None]
    stranded = np.where(usable, 0, free[:, None, :]).sum(axis=2)
    fits = (
        (usable.sum(axis=2) >= target.num_gpu[None, :])
        & (cpu_free[:, None] >= target.cpu_milli[None, :])
        & target.access[:, node_model].T
        & (target.num_gpu[None, :] > 0)
    )
    per_shape = np.where(fits, stranded, total[:, None])
    result: FloatArray = per_shape @ target.weight
    return result
