"""The offline upper bound on GPU allocation: no policy placing the same pods can do better.

Given the nodes and an arrival sequence (the tuned pod list of one trace and seed), the
bound at an arrived percent ``a`` is the optimum of a linear program that knows every pod
that has arrived by then in advance and may choose which of them to place. "Arrived by
``a``" follows the simulator's rows (``metrics.arrival_rows``): every pod whose arrived GPU
request, in percent of capacity rounded half to even, is at most ``a`` (at most ``a + 1``
when no pod rounds to ``a``, where the simulator's row borrows its neighbours), so the
bound at ``a`` is at least every allocation the row at ``a`` averages. It is the LP
relaxation of the multi-dimensional packing problem, aggregated so that it stays small:

- a *node class* is the set of nodes with the same CPU, memory, GPU count and GPU model;
  a *pod shape* is the set of GPU pods with the same CPU, memory, GPU count, per-GPU share
  and accepted models (CPU-only pods are left out: they allocate no GPU and only take
  room, so an optimum never needs them);
- ``x[s, k] >= 0`` is how many pods of shape ``s`` go to nodes of class ``k``; it exists
  only where one pod of the shape fits one node of the class on its own (CPU, memory,
  GPU count, model);
- per shape, ``sum_k x[s, k] <=`` the pods of that shape that have arrived;
- per class, CPU and memory: the pods' requests ``<=`` the class's total;
- per class, GPUs: for each dual-feasible function ``f`` below,
  ``sum_s x[s, k] * num_gpu_s * f(gpu_milli_s) <= gpus_k * nodes_k * 1000``;
- per class, GPU configurations (when there are at most ``MAX_CONFIGURATIONS``): a
  configuration ``c`` is a multiset of the shares in play that fills one GPU so that no
  share fits beside it; ``y[c, k] >= 0`` GPUs of class ``k`` hold it. Per share ``v``,
  ``sum_s x[s, k] (share v) <= sum_c y[c, k] * count of v in c``, and
  ``sum_c y[c, k] + whole GPUs taken <= gpus_k * nodes_k``;
- maximise the GPU thousandths allocated, ``sum x[s, k] * num_gpu_s * gpu_milli_s``.

Why it is a valid bound: any real placement, counted per shape and class, satisfies every
row. Every GPU holds either one whole-GPU pod (share 1000) or shared pods whose shares sum
to at most 1000. That content can be topped up to some configuration (add shares until none
fits), so counting each GPU under one such configuration satisfies the configuration rows.
For a dual-feasible function ``f`` (one with ``sum f(x_i) <= 1`` whenever
``sum x_i <= 1``) the ``f``-values on one GPU sum to at most 1000; summing over the class's
GPUs gives the function rows. The identity is the plain capacity row. The others are
Fekete and Schepers' ``u^(k)`` for ``k`` in :data:`DFF_ORDERS`: ``u^(k)(x) = x`` when
``(k + 1) x`` is whole and ``floor((k + 1) x) / k`` otherwise. ``u^(1)`` counts every
share above one half as a whole GPU (two such pods never share one); ``u^(4)`` counts an
810-thousandth pod as a whole GPU and every pod below 200 as nothing. The configurations
are the exact packing of one GPU and imply the function rows; the function rows stay for
inputs with too many distinct small shares to list the configurations (openb has 20
shares and 1,871 configurations). On openb gpushare80 the bound at 130 % arrived is 100 %
with the capacity row alone, 95.6 % with ``u^(1..10)`` and 94.5 % with the configurations.
The optimum is rounded down to a whole thousandth
after a small tolerance for the solver's arithmetic, and capped at the arrived demand
and the capacity (which the rows already imply).

With ``all_resources``, a second program counts CPU-only pods too. A run of the simulator
cannot drop a pod that fits when it arrives. The second program splits runs into cases on
the first CPU-only pod that failed (``_bound_program`` has the rows). It is solved at every
``ALL_RESOURCE_STEP``-th percent, and each point keeps the lower of both programs and of
every later point, since nothing departs. It is valid but costly and, on openb, not yet
tighter (decision 64).

What it does not see (so it may be loose, never wrong): nodes are pooled within a class,
so a class may host pods spread over "fractions" of nodes, and CPU and memory are not
tied to the GPUs of one node; pods and configured GPUs may be fractional.
"""

from __future__ import annotations

import math
import time
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from itertools import accumulate, pairwise

from wlmap.placement.nodes import Node
from wlmap.placement.packing._bound_program import (
    DFF_ORDERS,
    MAX_CONFIGURATIONS,
    NodeClass,
    Program,
    Shape,
    dff,
)
from wlmap.placement.packing.pods import MILLI, Pod

__all__ = ["DFF_ORDERS", "MAX_CONFIGURATIONS", "BoundPoint", "OfflineBound", "dff", "offline_bound"]

FULL = MILLI
ALL_RESOURCE_STEP = 5
"""The all-resource LP is solved at arrived percents that are multiples of this."""
CHECKPOINTS = 10
"""Slices of the arrivals where a CPU-only group's first failure is placed, one case each."""
_RELATIVE_TOLERANCE = 1e-6


@dataclass(frozen=True, slots=True)
class BoundPoint:
    """The bound at one arrived share.

    Attributes:
        arrived_percent: the arrived share asked for, in percent of the GPU capacity.
        arrived_gpu_milli: GPU thousandths requested by the pods arrived by then (see the
            module docstring).
        bound_gpu_milli: no placement of those pods allocates more GPU thousandths.
        capacity_gpu_milli: the cluster's GPUs times 1000.
    """

    arrived_percent: int
    arrived_gpu_milli: int
    bound_gpu_milli: int
    capacity_gpu_milli: int

    @property
    def bound_percent(self) -> float:
        """The bound in percent of the GPU capacity."""
        return (
            100.0 * self.bound_gpu_milli / self.capacity_gpu_milli
            if self.capacity_gpu_milli
            else 0.0
        )


@dataclass(frozen=True, slots=True)
class OfflineBound:
    """The bound of one arrival sequence at several arrived shares.

    Attributes:
        points: one per arrived share asked for, in increasing order.
        shape_classes: GPU pod shapes in the sequence (every shape with ``all_resources``).
        node_classes: GPU node classes in the cluster (every class with ``all_resources``).
        variables: LP columns (shape and class pairs where a pod fits a node, and GPU
            configurations per class).
        solve_seconds: wall time of building and solving every LP.
    """

    points: tuple[BoundPoint, ...]
    shape_classes: int
    node_classes: int
    variables: int
    solve_seconds: float

    def at(self, arrived_percent: int) -> BoundPoint:
        """The point at an arrived share.

        Raises:
            KeyError: the share was not asked for.
        """
        for point in self.points:
            if point.arrived_percent == arrived_percent:
                return point
        raise KeyError(f"no bound computed at {arrived_percent}% arrived")


def _all_resources(
    program: Program,
    end: int,
    counts: Callable[[int], list[int]],
    places: Sequence[Sequence[int]],
) -> float:
    """The all-resource LP's optimum with the pods before ``end`` arrived: the largest over
    the cases a run can be in (see ``_bound_program``): no CPU-only pod failed, or the
    first one that did is of a group and within one of ``CHECKPOINTS`` slices of the
    arrivals."""
    now = counts(end)
    best = program.solve(now)
    cuts = sorted({0, end, *(end * k // CHECKPOINTS for k in range(1, CHECKPOINTS))})
    for group in range(len(program.groups)):
        members = [places[s] for s, g in program.group_of.items() if g == group]
        for start, stop in pairwise(cuts):
            # the failed pod is one of the group's in the slice: at the latest its last one,
            # blocked by the pods placed before it
            last = max(
                (where[i - 1] for where in members if (i := bisect_left(where, stop))),
                default=-1,
            )
            if last >= start:
                value = program.solve(now, group, counts(last), counts(start))
                if value is not None and (best is None or value > best):
                    best = value
    return best if best is not None else 0.0


def offline_bound(
    nodes: Sequence[Node],
    pods: Sequence[Pod],
    levels: Iterable[int] = (100, 130),
    *,
    all_resources: bool = False,
) -> OfflineBound:
    """The offline upper bound on allocated GPU thousandths, per arrived share.

    Args:
        nodes: the cluster.
        pods: the arrival sequence (the tuned, shuffled list of one trace and seed).
        levels: arrived shares in percent of the GPU capacity (e.g. ``range(0, 131)``).
        all_resources: also solve the all-resource program with CPU-only pods (at levels
            that are multiples of ``ALL_RESOURCE_STEP``) and keep the lower value. Valid,
            but on openb it costs minutes per level and has not yet been tighter.

    Returns:
        One point per level, each at most the arrived demand and the capacity.
    """
    started = time.perf_counter()
    capacity = sum(n.gpus for n in nodes) * FULL
    classes: dict[NodeClass, int] = {}
    for node in nodes:
        group = NodeClass(node.cpu_milli, node.memory_mib, node.gpus, node.gpu_model)
        classes[group] = classes.get(group, 0) + 1
    shapes: dict[Shape, int] = {}
    shape_of: list[int] = []
    for pod in pods:
        models = frozenset(pod.gpu_models) if pod.gpu_models is not None and pod.num_gpu else None
        key = Shape(pod.cpu_milli, pod.memory_mib, pod.num_gpu, pod.gpu_milli, models)
        shape_of.append(shapes.setdefault(key, len(shapes)))
    every = list(shapes)
    gpu_shapes = [shape for shape in every if shape.num_gpu]
    gpu_index = {every.index(shape): i for i, shape in enumerate(gpu_shapes)}
    gpu_classes = [(group, count) for group, count in classes.items() if group.gpus]
    shares = Program(gpu_classes, gpu_shapes)
    resources = Program(list(classes.items()), every if all_resources else [], 0)

    demand = [p.num_gpu * p.gpu_milli for p in pods]
    arrived = list(accumulate(demand))
    # the simulator's grouping: arrived percent rounded half to even (``round`` does so)
    rounded = [round(a / capacity * 100.0) for a in arrived] if capacity else [0] * len(arrived)
    ordered = sorted(set(levels))
    ends = []
    for level in ordered:
        end = bisect_right(rounded, level)
        if end == bisect_right(rounded, level - 1):  # no pod rounds to the level
            end = bisect_right(rounded, level + 1)
        ends.append(end)
    places: list[list[int]] = [[] for _ in every]  # per shape, where its pods arrive
    for position, index in enumerate(shape_of):
        places[index].append(position)

    def counts(end: int) -> list[int]:
        return [bisect_left(where, end) for where in places]

    values = []
    for level, end in zip(ordered, ends, strict=True):
        if not end or not arrived[end - 1]:
            values.append(0.0)
            continue
        now = counts(end)
        value = shares.solve([now[s] for s in gpu_index]) or 0.0
        if resources.groups and level % ALL_RESOURCE_STEP == 0:
            value = min(value, _all_resources(resources, end, counts, places))
        values.append(value)
    points = []
    ceiling = math.inf  # allocation never shrinks: the bound at a later level holds before
    for level, end, value in reversed(list(zip(ordered, ends, values, strict=True))):
        ceiling = min(ceiling, value)
        arrived_milli = arrived[end - 1] if end else 0
        bound = math.floor(ceiling + _RELATIVE_TOLERANCE * max(1.0, ceiling))
        bound = max(0, min(bound, arrived_milli, capacity))
        points.append(BoundPoint(level, arrived_milli, bound, capacity))
    points.reverse()
    return OfflineBound(
        tuple(points),
        len(every) if all_resources else len(gpu_shapes),
        len(classes) if all_resources else len(gpu_classes),
        shares.columns + resources.columns,
        time.perf_counter() - started,
    )
