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

The all-resource program (``offline_bound(..., all_resources=True)``) also has CPU-only
pods as columns, in *groups* by CPU request (a group's ceiling: its CPU and the most
memory any CPU-only pod up to that CPU asks for). A run of the simulator is in one of
these cases: no arrived CPU-only pod failed (all are placed), or the first one that failed
is of group ``g`` and came in a given slice of the arrivals, so every CPU-only pod before
the slice was placed and, when it came, every node lacked the CPU or the memory of ``g``'s
ceiling ("blocked") by the pods placed before it. Columns ``y[s, k] <= x[s, k]`` count
those earlier pods (per shape at most those arrived before the group's last pod in the
slice); per class, ``z_cpu + z_mem >= nodes`` and the CPU (memory) the earlier pods use, in
nodes' worth, is at least ``z_cpu`` (``z_mem``) times one minus the ceiling's share of a
node plus one unit. Each case only changes row bounds of one model.
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
    """Pods that are interchangeable for the bound (``num_gpu`` 0: CPU-only)."""

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
    limit: int = MAX_CONFIGURATIONS,
) -> tuple[list[Row], int]:
    """The GPU rows of every class, and how many configuration columns they add (numbered
    after the pod columns; none when there are more than ``limit``)."""
    rows: list[Row] = []
    for k, (node, count) in enumerate(classes):
        placed = [(j, shapes[s]) for j, (s, on) in enumerate(columns) if on == k]
        placed = [(j, p) for j, p in placed if p.num_gpu]
        rows.extend(
            (
                float(node.gpus * MILLI * count),
                {j: p.num_gpu * dff(p.gpu_milli, order) for j, p in placed},
            )
            for order in (0, *DFF_ORDERS)
            if placed
        )
    shares = sorted({s.gpu_milli for s in shapes if 0 < s.gpu_milli < MILLI}, reverse=True)
    found = configurations(shares, limit) if shares and limit else None
    if found is None:
        return rows, 0
    added = 0
    for k, (node, count) in enumerate(classes):
        placed = [(j, shapes[s]) for j, (s, on) in enumerate(columns) if on == k]
        if not any(0 < p.gpu_milli < MILLI for _, p in placed):
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


def cpu_groups(shapes: Sequence[Shape]) -> list[tuple[int, int]]:
    """The CPU-only groups' ceilings ``(cpu_milli, memory_mib)``, smallest first: one per
    CPU request, with the most memory asked by a CPU-only pod of that CPU or less."""
    ceilings: list[tuple[int, int]] = []
    memory = 0
    for cpu in sorted({s.cpu_milli for s in shapes if not s.num_gpu}):
        memory = max(
            [memory, *(s.memory_mib for s in shapes if not s.num_gpu and s.cpu_milli == cpu)]
        )
        ceilings.append((cpu, memory))
    return ceilings


class Program:
    """The aggregated LP, built once; the arrived counts and the case only change row bounds."""

    def __init__(
        self,
        classes: list[tuple[NodeClass, int]],
        shapes: list[Shape],
        max_configurations: int = MAX_CONFIGURATIONS,
    ) -> None:
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
        self.groups = cpu_groups(shapes)
        self.group_of = {
            s: next(g for g, (cpu, _) in enumerate(self.groups) if cpu == shape.cpu_milli)
            for s, shape in enumerate(shapes)
            if not shape.num_gpu
        }
        # The public ``highspy.Highs`` prints a banner on standard output when it is
        # created, before its output can be turned off; its base class does not.
        solver = _Highs()
        solver.setOptionValue("output_flag", False)
        solver.setOptionValue("threads", 1)
        self._solver = solver
        self._inf = kHighsInf
        self._row_bounds: dict[int, tuple[float, float]] = {}
        self._blocking: list[list[int]] = []  # per group, the rows that need its nodes blocked
        self._nodes = [count for _, count in classes]
        self.columns = 0
        if not any(shapes[s].num_gpu for s, _ in columns):
            return
        row_of_shape = {s: i for i, s in enumerate(self._shape_rows)}
        rows: list[Row] = [(0.0, {}) for _ in self._shape_rows]
        for j, (s, _) in enumerate(columns):
            rows[row_of_shape[s]][1][j] = 1.0
        for k, (node, count) in enumerate(classes):
            placed = [(j, shapes[s]) for j, (s, on) in enumerate(columns) if on == k]
            # CPU and memory in nodes' worth, so that the rows stay well scaled
            if placed:
                rows.append((count, {j: p.cpu_milli / node.cpu_milli for j, p in placed}))
                rows.append((count, {j: p.memory_mib / node.memory_mib for j, p in placed}))
        more_rows, configured = gpu_rows(classes, shapes, columns, max_configurations)
        rows.extend(more_rows)
        total = len(columns) + configured
        lower = [-kHighsInf] * len(rows)
        self._earlier_rows = len(rows)
        if self.groups:
            total = self._add_blocking(classes, shapes, columns, total, rows, lower)
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
            np.array(lower, dtype=np.float64),
            np.array([upper for upper, _ in rows], dtype=np.float64),
            len(indices),
            np.array(starts, dtype=np.int32),
            np.array(indices, dtype=np.int32),
            np.array(values, dtype=np.float64),
        )
        solver.changeObjectiveSense(ObjSense.kMaximize)

    def _add_blocking(
        self,
        classes: Sequence[tuple[NodeClass, int]],
        shapes: Sequence[Shape],
        columns: Sequence[tuple[int, int]],
        total: int,
        rows: list[Row],
        lower: list[float],
    ) -> int:
        """Add the y columns and the blocking rows (off: lower bound -inf until a case asks
        for them) after ``total`` columns; the new column count."""
        inf = self._inf
        earlier = total  # y[j] is column earlier + j
        total += len(columns)
        for s in self._shape_rows:
            rows.append((inf, {earlier + j: 1.0 for j, (t, _) in enumerate(columns) if t == s}))
        rows.extend((0.0, {earlier + j: 1.0, j: -1.0}) for j in range(len(columns)))
        lower.extend([-inf] * (len(rows) - len(lower)))
        for cpu_ceiling, memory_ceiling in self.groups:
            group_rows = []
            for k, (node, _) in enumerate(classes):
                placed = [(j, shapes[s]) for j, (s, on) in enumerate(columns) if on == k]
                z_cpu, z_memory = total, total + 1
                total += 2
                group_rows.append(len(rows))
                rows.append((inf, {z_cpu: 1.0, z_memory: 1.0}))
                spare_cpu = max(0, node.cpu_milli - cpu_ceiling + 1) / node.cpu_milli
                spare_memory = max(0, node.memory_mib - memory_ceiling + 1) / node.memory_mib
                cpu = {earlier + j: p.cpu_milli / node.cpu_milli for j, p in placed}
                memory = {earlier + j: p.memory_mib / node.memory_mib for j, p in placed}
                rows.append((inf, {**cpu, z_cpu: -spare_cpu}))
                rows.append((inf, {**memory, z_memory: -spare_memory}))
                lower.extend((-inf, 0.0, 0.0))
            self._blocking.append(group_rows)
        return total

    def _bound(self, row: int, lower: float, upper: float) -> None:
        if self._row_bounds.get(row) != (lower, upper):
            self._solver.changeRowBounds(row, lower, upper)
            self._row_bounds[row] = (lower, upper)

    def solve(
        self,
        counts: Sequence[int],
        failed: int | None = None,
        before: Sequence[int] = (),
        early: Sequence[int] = (),
    ) -> float | None:
        """The LP optimum with ``counts[s]`` pods of each shape arrived, in one case.

        ``failed`` (None: no CPU-only pod failed) is the group of the first CPU-only pod
        that failed; it came after ``early[s]`` pods of each shape had arrived (the
        CPU-only ones were placed) and was blocked by pods among the first ``before[s]``.
        None when no run can be in that case.
        """
        if not self.columns:
            return 0.0
        inf = self._inf
        for row, s in enumerate(self._shape_rows):
            cpu_only = s in self.group_of
            if failed is None:
                self._bound(row, float(counts[s]) if cpu_only else -inf, float(counts[s]))
                if self.groups:
                    self._bound(self._earlier_rows + row, -inf, inf)
                continue
            lower = float(early[s]) if cpu_only else -inf
            self._bound(row, lower, float(counts[s]))
            self._bound(self._earlier_rows + row, lower, float(before[s]))
        for group, rows in enumerate(self._blocking):
            for row, nodes in zip(rows, self._nodes, strict=True):
                self._bound(row, float(nodes) if group == failed else -inf, inf)
        self._solver.run()
        status = self._solver.modelStatusToString(self._solver.getModelStatus())
        if status not in ("Optimal", "Infeasible"):
            # a basis kept from an infeasible case can leave the dual simplex undecided
            self._solver.clearSolver()
            self._solver.run()
            status = self._solver.modelStatusToString(self._solver.getModelStatus())
        if status == "Infeasible":
            return None
        if status != "Optimal":
            raise RuntimeError(f"the bound's linear program ended {status!r}, not optimal")
        return float(self._solver.getInfo().objective_function_value)
