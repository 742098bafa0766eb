"""The linear program behind ``bound.offline_bound``: classes, shapes, rows, and HiGHS.

Two ways to keep GPU shares from being packed more densely than GPUs allow, both valid
for any real placement (see the ``bound`` module docstring):

- dual-feasible-function rows (always): per class and function ``f``,
  ``sum x * num_gpu * f(share) <= GPUs * 1000``;
- GPU configurations (when the shares are few enough): a configuration is a multiset of
  shares that fills one GPU so that no share fits beside it. ``y[c, k]`` GPUs of class ``k``
  hold configuration ``c``; per class and share, the pods with that share are at most the
  places the configurations offer, and configured GPUs plus GPUs taken whole are at most
  the class's GPUs. Every GPU's real content fits in some configuration, so these rows are
  valid; they are the exact packing of one GPU, which the function rows only approximate.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import NamedTuple

from wlmap.placement.packing.pods import MILLI

DFF_ORDERS = tuple(range(1, 11))
MAX_CONFIGURATIONS = 4000
"""Above this many configurations (many distinct small shares) only the function rows are used."""

Row = tuple[float, dict[int, float]]  # upper bound, coefficients by column


class NodeClass(NamedTuple):
    """Nodes that are interchangeable for the bound."""

    cpu_milli: int
    memory_mib: int
    gpus: int
    model: str | None


class Shape(NamedTuple):
    """GPU pods that are interchangeable for the bound."""

    cpu_milli: int
    memory_mib: int
    num_gpu: int
    gpu_milli: int
    models: frozenset[str] | None


def dff(milli: int, order: int) -> float:
    """Fekete and Schepers' ``u^(order)`` of a GPU share, both in thousandths (0: identity)."""
    scaled = (order + 1) * milli
    if order == 0 or scaled % MILLI == 0:
        return float(milli)
    return (scaled // MILLI) * MILLI / order


def fits(shape: Shape, node: NodeClass) -> bool:
    """Whether one pod of the shape fits one empty node of the class."""
    return (
        shape.num_gpu <= node.gpus
        and shape.cpu_milli <= node.cpu_milli
        and shape.memory_mib <= node.memory_mib
        and (shape.models is None or node.model in shape.models)
    )


def configurations(shares: Sequence[int], limit: int) -> list[tuple[int, ...]] | None:
    """Counts per share (in the order given) of every configuration; None above ``limit``."""
    found: list[tuple[int, ...]] = []
    smallest = min(shares)
    counts = [0] * len(shares)

    def fill(index: int, room: int) -> Iterator[None]:
        if index == len(shares):
            if room < smallest:  # nothing fits beside it
                yield None
            return
        most = room // shares[index]
        for count in range(most, -1, -1):
            counts[index] = count
            yield from fill(index + 1, room - count * shares[index])
        counts[index] = 0

    for _ in fill(0, MILLI):
        found.append(tuple(counts))
        if len(found) > limit:
            return None
    return found


def gpu_rows(
    classes: Sequence[tuple[NodeClass, int]],
    shapes: Sequence[Shape],
    columns: Sequence[tuple[int, int]],
) -> tuple[list[Row], int]:
    """The GPU rows of every class, and how many configuration columns they add (numbered
    after the pod columns)."""
    rows: list[Row] = []
    for k, (node, count) in enumerate(classes):
        placed = [(j, shapes[s]) for j, (s, on) in enumerate(columns) if on == k]
        rows.extend(
            (
                float(node.gpus * MILLI * count),
                {j: p.num_gpu * dff(p.gpu_milli, order) for j, p in placed},
            )
            for order in (0, *DFF_ORDERS)
            if placed
        )
    shares = sorted({s.gpu_milli for s in shapes if s.gpu_milli < MILLI}, reverse=True)
    found = configurations(shares, MAX_CONFIGURATIONS) if shares else None
    if found is None:
        return rows, 0
    added = 0
    for k, (node, count) in enumerate(classes):
        placed = [(j, shapes[s]) for j, (s, on) in enumerate(columns) if on == k]
        if not any(p.gpu_milli < MILLI for _, p in placed):
            continue
        first = len(columns) + added
        added += len(found)
        gpus: dict[int, float] = {first + c: 1.0 for c in range(len(found))}
        gpus.update({j: float(p.num_gpu) for j, p in placed if p.gpu_milli == MILLI})
        rows.append((float(node.gpus * count), gpus))
        for index, share in enumerate(shares):
            row = {j: 1.0 for j, p in placed if p.gpu_milli == share}
            if row:
                row.update({first + c: -float(f[index]) for c, f in enumerate(found) if f[index]})
                rows.append((0.0, row))
    return rows, added


class Program:
    """The aggregated LP, built once; the arrived counts only change row bounds."""

    def __init__(self, classes: list[tuple[NodeClass, int]], shapes: list[Shape]) -> None:
        import numpy as np  # noqa: PLC0415 - the solver stack loads only when a bound is asked for
        from highspy import ObjSense, kHighsInf  # noqa: PLC0415

        try:
            from highspy._core import _Highs  # noqa: PLC0415 - start-up cost
        except ImportError:  # older releases expose only the binding itself, as Highs
            from highspy import Highs as _Highs  # noqa: PLC0415 - start-up cost

        columns = [
            (s, k)
            for s, shape in enumerate(shapes)
            for k, (node, _) in enumerate(classes)
            if fits(shape, node)
        ]
        self._shape_rows = sorted({s for s, _ in columns})
        self._bounds = [-1] * len(self._shape_rows)
        # The public ``highspy.Highs`` prints a banner on standard output when it is
        # created, before its output can be turned off; its base class does not.
        solver = _Highs()
        solver.setOptionValue("output_flag", False)
        solver.setOptionValue("threads", 1)
        self._solver = solver
        self._inf = kHighsInf
        self.columns = len(columns)
        if not columns:
            return
        row_of_shape = {s: i for i, s in enumerate(self._shape_rows)}
        rows: list[Row] = [(0.0, {}) for _ in self._shape_rows]
        for j, (s, _) in enumerate(columns):
            rows[row_of_shape[s]][1][j] = 1.0
        for k, (node, count) in enumerate(classes):
            placed = [(j, shapes[s]) for j, (s, on) in enumerate(columns) if on == k]
            if placed:
                rows.append((node.cpu_milli * count, {j: p.cpu_milli for j, p in placed}))
                rows.append((node.memory_mib * count, {j: p.memory_mib for j, p in placed}))
        more_rows, configured = gpu_rows(classes, shapes, columns)
        rows.extend(more_rows)
        total = len(columns) + configured
        self.columns = total
        cost = [float(shapes[s].num_gpu * shapes[s].gpu_milli) for s, _ in columns]
        solver.addVars(total, np.zeros(total), np.full(total, kHighsInf))
        solver.changeColsCost(
            len(cost), np.arange(len(cost), dtype=np.int32), np.array(cost, dtype=np.float64)
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
