"""Prices of GPU shares from the best packing of a trace's shared pods (an LP dual).

Shared pods (a share of one GPU) fill GPUs like items fill bins. For the trace's shared
sizes ``s`` with counts ``n_s``, the packing that uses the fewest GPUs is the linear
program over *configurations* (multisets of sizes that fill one GPU so that no size fits
beside them, as in the offline bound): minimise the GPUs used subject to each size being
packed ``n_s`` times. Its dual gives every size a price ``y_s >= 0`` in GPUs, with no
configuration worth more than one GPU: roughly, the share of a GPU that a pod of that size
uses up in the best packing. On openb the 810 m pods price at 1 (nothing but the rare
pods of 160 m or less fits beside them, and those price at 0), 470 m at 1/2, 320 m at 1/3.

``gap_value[r]`` is the most that a GPU with ``r`` thousandths free can still take at
these prices (an unbounded knapsack). Putting a pod of size ``s`` on a GPU with gap ``r``
*costs* ``gap_value[r] - y_s - gap_value[r - s] >= 0`` GPUs: zero when the GPU can end in
a configuration of the best packing, more when the pod spoils the gap (a 320 m pod in the
530 m left by a 470 m pod costs 1/2 - 1/3 = 1/6 GPU: a 470 m pod would have closed it).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from wlmap.placement.packing._bound_program import configurations
from wlmap.placement.packing.pods import MILLI
from wlmap.placement.packing.policies.fragmentation import FloatArray

__all__ = ["CONFIGURATION_LIMIT", "SharePlan", "gap_values", "share_plan"]

CONFIGURATION_LIMIT = 20_000
"""Above this many configurations the plan is left out (prices of 0 cost nothing)."""


class SharePlan:
    """Share prices and gap values; ``cost`` is the GPUs a placement spoils.

    Attributes:
        price: price (GPUs) per size in thousandths, shape (1001,); sizes the trace does
            not have are priced at the gap value of their own size.
        gap_value: the most a gap of ``r`` thousandths can still take, shape (1001,).
    """

    def __init__(self, price: FloatArray, gap_value: FloatArray) -> None:
        self.price = price
        self.gap_value = gap_value

    def cost(self, size: int, gap: np.ndarray) -> FloatArray:
        """GPUs spoiled by putting a ``size`` pod on GPUs with ``gap`` free (each >= size)."""
        value = self.gap_value
        spoiled: FloatArray = np.maximum(0.0, value[gap] - self.price[size] - value[gap - size])
        return spoiled


def share_plan(sizes: Sequence[int], counts: Sequence[float]) -> SharePlan:
    """The plan of the shared sizes (thousandths, 1..999) seen ``counts`` times each."""
    # largest first, so the solver sees the same program whatever order the trace had
    kept = sorted(
        ((s, c) for s, c in zip(sizes, counts, strict=True) if 0 < s < MILLI and c > 0),
        reverse=True,
    )
    prices = np.zeros(len(kept), dtype=np.float64)
    if kept:
        shares = [s for s, _ in kept]
        found = configurations(shares, CONFIGURATION_LIMIT)
        if found is not None:
            prices = _dual_prices([c for _, c in kept], found)
    value = gap_values([s for s, _ in kept], prices)
    price = value.copy()
    for (size, _), y in zip(kept, prices, strict=True):
        price[size] = y
    return SharePlan(price, value)


def gap_values(sizes: Sequence[int], prices: FloatArray) -> FloatArray:
    """``value[r]``: the highest total price of sizes that fit together in ``r``."""
    value = np.zeros(MILLI + 1, dtype=np.float64)
    size = np.asarray(sizes, dtype=np.int64)
    for r in range(1, MILLI + 1):
        fit = size <= r
        best = value[r - 1]
        if fit.any():
            best = max(best, float((value[r - size[fit]] + prices[fit]).max()))
        value[r] = best
    return value


def _dual_prices(counts: Sequence[float], found: Sequence[tuple[int, ...]]) -> FloatArray:
    """Maximise ``sum n_s y_s`` with every configuration worth at most one GPU, ``y >= 0``."""
    from highspy import ObjSense, kHighsInf  # noqa: PLC0415 - the solver loads only when needed

    try:
        from highspy._core import _Highs  # noqa: PLC0415 - start-up cost
    except ImportError:  # older releases expose only the binding itself, as Highs
        from highspy import Highs as _Highs  # noqa: PLC0415 - start-up cost

    solver = _Highs()
    solver.setOptionValue("output_flag", False)
    solver.setOptionValue("threads", 1)
    n = len(counts)
    solver.addVars(n, np.zeros(n), np.full(n, kHighsInf))
    solver.changeColsCost(n, np.arange(n, dtype=np.int32), np.asarray(counts, dtype=np.float64))
    starts: list[int] = []
    indices: list[int] = []
    values: list[float] = []
    for config in found:
        starts.append(len(indices))
        for i, k in enumerate(config):
            if k:
                indices.append(i)
                values.append(float(k))
    rows = len(found)
    solver.addRows(
        rows,
        np.full(rows, -kHighsInf),
        np.ones(rows),
        len(indices),
        np.array(starts, dtype=np.int32),
        np.array(indices, dtype=np.int32),
        np.array(values, dtype=np.float64),
    )
    solver.changeObjectiveSense(ObjSense.kMaximize)
    solver.run()
    status = solver.modelStatusToString(solver.getModelStatus())
    if status != "Optimal":
        raise RuntimeError(f"the share prices' linear program ended {status!r}, not optimal")
    prices: FloatArray = np.maximum(np.asarray(solver.getSolution().col_value), 0.0)
    return prices
