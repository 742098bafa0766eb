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
- maximise the GPU thousandths allocated, ``sum x[s, k] * num_gpu_s * gpu_milli_s``.

Why it is a valid bound: any real placement, counted per shape and class, satisfies every
row. Every GPU holds either one whole-GPU pod (share 1000) or shared pods whose shares sum
to at most 1000, so for a dual-feasible function ``f`` (one with ``sum f(x_i) <= 1``
whenever ``sum x_i <= 1``) the ``f``-values on one GPU sum to at most 1000; summing over
the class's GPUs gives the row. The identity is the plain capacity row. The others are
Fekete and Schepers' ``u^(k)`` for ``k`` in :data:`DFF_ORDERS`: ``u^(k)(x) = x`` when
``(k + 1) x`` is whole and ``floor((k + 1) x) / k`` otherwise. ``u^(1)`` counts every
share above one half as a whole GPU (two such pods never share one); without it the LP
packs three 600-thousandth pods onto two GPUs. Higher orders catch the shares that leave a
gap only small pods can fill: under ``u^(4)`` an 810-thousandth pod counts as a whole GPU
and every pod below 200 as nothing. On openb the orders up to 10 lower the bound at 130 %
arrived from 100 % to 95.5 % (gpushare80) and add nothing beyond 10, nor does the
``U^(e)`` family of the same paper. The optimum is rounded down to a whole thousandth
after a small tolerance for the solver's arithmetic, and capped at the arrived demand
and the capacity (which the rows already imply).

What it does not see (so it may be loose, never wrong): nodes are pooled within a class,
so a class may host pods spread over "fractions" of nodes; pods may be fractional.
"""

from __future__ import annotations

import math
import time
from bisect import bisect_right
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import accumulate
from typing import NamedTuple

from wlmap.placement.model import MILLI, Node, Pod

__all__ = ["DFF_ORDERS", "BoundPoint", "OfflineBound", "offline_bound"]

FULL = MILLI
DFF_ORDERS = tuple(range(1, 11))
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
        shape_classes: GPU pod shapes in the sequence.
        node_classes: GPU node classes in the cluster.
        variables: LP columns (shape and class pairs where a pod fits a node).
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


class _NodeClass(NamedTuple):
    cpu_milli: int
    memory_mib: int
    gpus: int
    model: str | None


class _Shape(NamedTuple):
    cpu_milli: int
    memory_mib: int
    num_gpu: int
    gpu_milli: int
    models: frozenset[str] | None


def dff(milli: int, order: int) -> float:
    """Fekete and Schepers' ``u^(order)`` of a GPU share, both in thousandths (0: identity)."""
    scaled = (order + 1) * milli
    if order == 0 or scaled % FULL == 0:
        return float(milli)
    return (scaled // FULL) * FULL / order


def _fits(shape: _Shape, node: _NodeClass) -> bool:
    return (
        shape.num_gpu <= node.gpus
        and shape.cpu_milli <= node.cpu_milli
        and shape.memory_mib <= node.memory_mib
        and (shape.models is None or node.model in shape.models)
    )


def offline_bound(
    nodes: Sequence[Node], pods: Sequence[Pod], levels: Iterable[int] = (100, 130)
) -> OfflineBound:
    """The offline upper bound on allocated GPU thousandths, per arrived share.

    Args:
        nodes: the cluster.
        pods: the arrival sequence (the tuned, shuffled list of one trace and seed).
        levels: arrived shares in percent of the GPU capacity (e.g. ``range(0, 131)``).

    Returns:
        One point per level, each at most the arrived demand and the capacity.
    """
    started = time.perf_counter()
    capacity = sum(n.gpus for n in nodes) * FULL
    classes: dict[_NodeClass, int] = {}
    for node in nodes:
        if node.gpus > 0:
            group = _NodeClass(node.cpu_milli, node.memory_mib, node.gpus, node.gpu_model)
            classes[group] = classes.get(group, 0) + 1
    shapes: dict[_Shape, int] = {}
    shape_of: list[int] = []
    for pod in pods:
        if pod.num_gpu == 0:
            shape_of.append(-1)
            continue
        models = frozenset(pod.gpu_models) if pod.gpu_models is not None else None
        key = _Shape(pod.cpu_milli, pod.memory_mib, pod.num_gpu, pod.gpu_milli, models)
        shape_of.append(shapes.setdefault(key, len(shapes)))
    program = _Program(list(classes.items()), list(shapes))

    demand = [p.num_gpu * p.gpu_milli for p in pods]
    arrived = list(accumulate(demand))
    # the simulator's grouping: arrived percent rounded half to even (``round`` does so)
    rounded = [round(a / capacity * 100.0) for a in arrived] if capacity else [0] * len(arrived)
    counts = [0] * len(shapes)
    taken = 0
    points = []
    for level in sorted(set(levels)):
        end = bisect_right(rounded, level)
        if end == bisect_right(rounded, level - 1):  # no pod rounds to the level
            end = bisect_right(rounded, level + 1)
        for index in shape_of[taken:end]:
            if index >= 0:
                counts[index] += 1
        taken = max(taken, end)
        arrived_milli = arrived[end - 1] if end else 0
        value = program.solve(counts) if arrived_milli else 0.0
        bound = math.floor(value + _RELATIVE_TOLERANCE * max(1.0, value))
        bound = max(0, min(bound, arrived_milli, capacity))
        points.append(BoundPoint(level, arrived_milli, bound, capacity))
    return OfflineBound(
        tuple(points),
        len(shapes),
        len(classes),
        program.columns,
        time.perf_counter() - started,
    )


class _Program:
    """The aggregated LP, built once; the arrived counts only change row bounds."""

    def __init__(self, classes: list[tuple[_NodeClass, int]], shapes: list[_Shape]) -> None:
        import numpy as np  # noqa: PLC0415 - the solver stack loads only when a bound is asked for
        from highspy import ObjSense, kHighsInf  # noqa: PLC0415

        try:
            from highspy._core import _Highs  # noqa: PLC0415
        except ImportError:  # older releases expose only the binding itself, as Highs
            from highspy import Highs as _Highs  # noqa: PLC0415

        columns = [
            (s, k)
            for s, shape in enumerate(shapes)
            for k, (node, _) in enumerate(classes)
            if _fits(shape, node)
        ]
        self.columns = len(columns)
        self._shape_rows = sorted({s for s, _ in columns})
        self._bounds = [-1] * len(self._shape_rows)
        # The public ``highspy.Highs`` prints a banner on standard output when it is
        # created, before its output can be turned off; its base class does not.
        solver = _Highs()
        solver.setOptionValue("output_flag", False)
        solver.setOptionValue("threads", 1)
        self._solver = solver
        if not columns:
            return
        cost = [float(shapes[s].num_gpu * shapes[s].gpu_milli) for s, _ in columns]
        solver.addVars(len(columns), np.zeros(len(columns)), np.full(len(columns), kHighsInf))
        solver.changeColsCost(
            len(columns), np.arange(len(columns), dtype=np.int32), np.array(cost, dtype=np.float64)
        )
        row_of_shape = {s: i for i, s in enumerate(self._shape_rows)}
        rows: list[tuple[float, dict[int, float]]] = [(0.0, {}) for _ in self._shape_rows]
        for j, (s, _) in enumerate(columns):
            rows[row_of_shape[s]][1][j] = 1.0
        for k, (node, count) in enumerate(classes):
            placed = [(j, shapes[s]) for j, (s, on) in enumerate(columns) if on == k]
            if placed:
                rows.append((node.cpu_milli * count, {j: p.cpu_milli for j, p in placed}))
                rows.append((node.memory_mib * count, {j: p.memory_mib for j, p in placed}))
                rows.extend(
                    (
                        float(node.gpus * FULL * count),
                        {j: p.num_gpu * dff(p.gpu_milli, order) for j, p in placed},
                    )
                    for order in (0, *DFF_ORDERS)
                )
        starts: list[int] = []
        indices: list[int] = []
        values: list[float] = []
        for _, row in rows:
            starts.append(len(indices))
            indices.extend(row)
            values.extend(row.values())
        solver.addRows(
            len(rows),
            np.full(len(rows), -kHighsInf),
            np.array([upper for upper, _ in rows], dtype=np.float64),
            len(indices),
            np.array(starts, dtype=np.int32),
            np.array(indices, dtype=np.int32),
            np.array(values, dtype=np.float64),
        )
        solver.changeObjectiveSense(ObjSense.kMaximize)
        self._inf = kHighsInf

    def solve(self, counts: Sequence[int]) -> float:
        """The LP optimum with ``counts[s]`` pods of each shape arrived."""
        if not self.columns:
            return 0.0
        for row, s in enumerate(self._shape_rows):
            if self._bounds[row] != counts[s]:
                self._solver.changeRowBounds(row, -self._inf, float(counts[s]))
                self._bounds[row] = counts[s]
        self._solver.run()
        status = self._solver.modelStatusToString(self._solver.getModelStatus())
        if status != "Optimal":
            raise RuntimeError(f"the bound's linear program ended {status!r}, not optimal")
        return float(self._solver.getInfo().objective_function_value)
