"""The finest-level candidates of one decision as columns, and the choice over all of them.

Most candidates put the whole gang inside one finest domain; on 10,000 nodes there are
hundreds of them per decision. :class:`FinestTable` keeps their terms, weighted score and
tie-break keys as numpy columns (one row per domain, domains ascending), and :func:`choose`
applies :func:`._choice.select`'s rule to the table and the few packed (coarser) candidates
together, without building one Python object per row. Only the rows it returns become
:class:`~._choice.Scored` (:meth:`FinestTable.row`), with the same values
``_scoring.finest_scored`` gives, so the choice is the one ``select`` makes over the
whole list (a test compares both on random clusters).

The rule, column by column: a weighted objective keeps the rows of the least score
(rounded to 1e-9); a tiered one keeps, tier by tier, the rows within ``best * (1 +
tolerance)``; then each tie-break but the last keeps the least key; ``lowerIndex`` closes
with the lowest finest domain, a one-domain candidate first.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from wlmap.placement.gangs.objective._choice import Scored, tie_breaks
from wlmap.placement.gangs.objective._objective import Objective, TermName

__all__ = ["FinestTable", "choose"]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]

_DIGITS = 9

ValueOf = Callable[[Scored], float]


@dataclass(frozen=True, eq=False)
class FinestTable:
    """Candidates that each keep the gang inside one finest domain.

    Attributes:
        level: the finest level's index.
        domains: the domains, ascending.
        raw: each used term's values.
        parts: each used term's weighted, normalised values (weighted objectives; else empty).
        score: the sum of ``parts`` (zeros for tiered objectives).
        keys: per tie-break but ``lowerIndex``, its key (``tighterFit``: GPUs left in the
            domain; ``tighterNode``: GPUs its tightest node keeps after one pod;
            ``tighterParent``: GPUs left in the domain's parent;
            ``fewerNodes``: nodes used; ``fewerDomains``: 1).
    """

    level: int
    domains: IntArray
    raw: dict[TermName, FloatArray]
    parts: dict[TermName, FloatArray]
    score: FloatArray
    keys: dict[str, IntArray]

    def __len__(self) -> int:
        return len(self.domains)

    def row(self, objective: Objective, i: int) -> Scored:
        """Row ``i`` as a scored candidate (not packed)."""
        raw = {t: float(v[i]) for t, v in self.raw.items()}
        parts = {t: float(v[i]) for t, v in self.parts.items()}
        domain = int(self.domains[i])
        ties: list[object] = []
        for rule in tie_breaks(objective):
            if rule == "lowerIndex":
                ties.append(((domain,), ()))
            else:
                ties.append(int(self.keys[rule][i]))
        return Scored(self.level, domain, None, raw, parts, sum(parts.values()), tuple(ties))


def choose(
    objective: Objective,
    table: FinestTable,
    packed: Sequence[Scored],
    skip: tuple[int, int] | None = None,
) -> Scored | None:
    """The best of the table's rows and ``packed``, leaving out the (level, domain) ``skip``.

    None when nothing is left. A chosen row comes back unpacked (``candidate`` None).
    """
    rows = np.ones(len(table), dtype=bool)
    others = list(packed)
    if skip is not None:
        if skip[0] == table.level:
            rows &= table.domains != skip[1]
        others = [s for s in others if (s.level, s.domain) != skip]
    if not rows.any() and not others:
        return None
    if objective.tiers is None:
        rows, others = _least(rows, np.round(table.score, _DIGITS), others, _score_of, None)
    else:
        for tier in objective.tiers:
            values = table.raw[tier.term]
            rows, others = _least(rows, values, others, _raw_of(tier.term), tier.tolerance)
    rules = tie_breaks(objective)
    first = rules.index("lowerIndex")
    for position, rule in enumerate(rules[:first]):
        rows, others = _least(rows, table.keys[rule], others, _tie_of(position), None)
    # Rows have distinct lowerIndex keys, so the lowest domain is the only row that can win;
    # the keys from lowerIndex on settle it against the packed candidates.
    found = [table.row(objective, int(np.flatnonzero(rows)[0]))] if rows.any() else []
    found += others
    return min(found, key=lambda s: s.ties[first:])


def _least(
    rows: BoolArray,
    values: FloatArray | IntArray,
    others: list[Scored],
    value_of: ValueOf,
    tolerance: float | None,
) -> tuple[BoolArray, list[Scored]]:
    """Rows and packed candidates whose value is the least, or within ``tolerance`` of it.

    With a tolerance the values are compared rounded to 1e-9 (``_choice.keep_within``);
    without one (tie-break keys, rounded scores) they are compared as they are.
    """
    theirs = [value_of(s) for s in others]
    mine = [values[rows].min()] if rows.any() else []
    best = min([*theirs, *mine])
    if tolerance is None:
        return rows & (values == best), [
            s for s, v in zip(others, theirs, strict=True) if v == best
        ]
    bound = round(float(best) + tolerance * abs(float(best)), _DIGITS)
    keep = np.round(values, _DIGITS) <= bound
    kept = [s for s, v in zip(others, theirs, strict=True) if round(v, _DIGITS) <= bound]
    return rows & keep, kept


def _score_of(scored: Scored) -> float:
    return round(scored.score, _DIGITS)


def _raw_of(term: TermName) -> ValueOf:
    return lambda scored: scored.raw[term]


def _tie_of(position: int) -> ValueOf:
    return lambda scored: scored.ties[position]
