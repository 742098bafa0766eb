"""Why a gang went where it went: the chosen domain, the runner-up, and what decided.

The runner-up is the candidate the policy would have chosen had the chosen domain not been
there (the best candidate in any other domain). The text reads like
``rack b1/r3: cost 1.0 vs 10.0 for b2/r1; leaves 4 whole racks free``.
"""

from __future__ import annotations

from dataclasses import dataclass

from wlmap.placement.gangs.gang import GangPlacement
from wlmap.placement.gangs.objective._objective import TermName

__all__ = ["Decision", "Explanation", "TermComparison", "level_word"]

_LABELS: dict[str, str] = {
    "communication": "cost",
    "wholeFreeDomains": "whole {level}s broken",
    "spareCapacity": "spare GPUs used",
    "balance": "load",
    "priority": "priority-weighted cost",
}


@dataclass(frozen=True, slots=True)
class TermComparison:
    """One term's value for the chosen candidate and for the runner-up (None without one)."""

    term: TermName
    chosen: float
    runner_up: float | None


@dataclass(frozen=True, slots=True)
class Explanation:
    """The structured form of a decision's reason.

    Attributes:
        chosen: the chosen domain, e.g. ``rack b1/r3`` (``cluster`` for the whole cluster).
        runner_up: the runner-up's domain, or None when no other domain could hold the gang.
        decided_by: the term, or tie-break, on which the chosen candidate won; ``only
            candidate`` without a runner-up.
        terms: every term of the objective, chosen against runner-up.
        score: the weighted score of the chosen candidate and of the runner-up (weighted
            objectives only).
        whole_level: the level whose whole free domains are counted, e.g. ``rack``.
        whole_free_left: whole free domains of that level left after the placement.
        candidates: how many candidate placements were compared.
    """

    chosen: str
    runner_up: str | None
    decided_by: str
    terms: tuple[TermComparison, ...]
    score: tuple[float, float | None] | None
    whole_level: str
    whole_free_left: int
    candidates: int

    def text(self) -> str:
        """The reason in one line."""
        plural = "" if self.whole_free_left == 1 else "s"
        leaves = f"leaves {self.whole_free_left} whole {self.whole_level}{plural} free"
        if self.runner_up is None:
            return f"{self.chosen}: the only domain that fits; {leaves}"
        runner = self.runner_up
        chosen_word = self.chosen.split(" ", 1)[0]
        if runner.split(" ", 1)[0] == chosen_word:
            runner = runner.split(" ", 1)[1]
        by_term = {t.term: t for t in self.terms}
        if self.decided_by in by_term:
            decisive = self._compare(by_term[self.decided_by])
            others = [
                self._compare(t)
                for t in self.terms
                if t.term != self.decided_by and t.runner_up is not None and t.runner_up != t.chosen
            ]
            if self.score is not None:
                chosen_score, runner_score = self.score
                theirs = "-" if runner_score is None else _number(runner_score)
                decisive = f"score {_number(chosen_score)} vs {theirs} ({decisive})"
            line = f"{self.chosen}: {decisive} for {runner}"
            if others:
                line += f" (also {', '.join(others)})"
            return f"{line}; {leaves}"
        return f"{self.chosen}: ties {runner} on every term, {self.decided_by} decides; {leaves}"

    def _compare(self, term: TermComparison) -> str:
        label = _LABELS[term.term].format(level=self.whole_level)
        show = _count if term.term in ("wholeFreeDomains", "spareCapacity") else _number
        theirs = "-" if term.runner_up is None else show(term.runner_up)
        return f"{label} {show(term.chosen)} vs {theirs}"


@dataclass(frozen=True, slots=True)
class Decision:
    """A placement with its explanation (``placement.reason`` is the explanation's text)."""

    placement: GangPlacement
    explanation: Explanation


def level_word(key: str) -> str:
    """A level's label key as a word: ``rack`` for ``network.example.com/rack``."""
    return key.rsplit("/", 1)[-1].rsplit(".", 1)[-1] or key


def _count(value: float) -> str:
    return str(round(value))


def _number(value: float) -> str:
    if float(value).is_integer():
        return f"{value:.1f}" if abs(value) < 1e6 else f"{value:.0f}"
    return f"{value:.3f}".rstrip("0")
