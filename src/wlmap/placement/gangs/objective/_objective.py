"""The objective file as frozen models: which terms a gang decision weighs, and how.

An objective either *weights* its terms (one score, the weighted sum of normalised terms)
or ranks them in *tiers* (lexicographic: the first tier decides, a later tier only breaks
what the earlier ones left within their tolerance). The file spells keys in camelCase;
Python attributes are snake_case.
"""

from __future__ import annotations

from typing import Annotated, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

__all__ = [
    "TERMS",
    "TIE_BREAKS",
    "BalanceTerm",
    "CommunicationTerm",
    "Objective",
    "PriorityTerm",
    "SpareCapacityTerm",
    "TermName",
    "TermSettings",
    "TermWeights",
    "TieBreak",
    "Tier",
    "TierWeightsSpec",
    "WholeFreeDomainsTerm",
]

TermName = Literal["communication", "wholeFreeDomains", "spareCapacity", "balance", "priority"]
TERMS: tuple[TermName, ...] = get_args(TermName)
TieBreak = Literal[
    "fewerSlotsLeft",
    "tighterFit",
    "tighterNode",
    "tighterParent",
    "fewerNodes",
    "fewerDomains",
    "lowerIndex",
]
TIE_BREAKS: tuple[TieBreak, ...] = get_args(TieBreak)

Weight = Annotated[float, Field(ge=0, allow_inf_nan=False)]


class _Model(BaseModel):
    model_config = ConfigDict(
        frozen=True,
        extra="forbid",
        alias_generator=to_camel,
        validate_by_name=True,
        validate_by_alias=True,
        serialize_by_alias=True,
    )


class TierWeightsSpec(_Model):
    """The cost of a pod pair by the finest domain both pods share (see ``quality``).

    Attributes:
        across: the pair shares no domain.
        levels: per level, coarsest first.
        node: both pods on one node.
    """

    across: Weight
    levels: tuple[Weight, ...] = Field(min_length=1)
    node: Weight = 0.0


class CommunicationTerm(_Model):
    """Mean pod-pair cost of the gang; ``tierWeights`` absent means the fabric defaults."""

    tier_weights: TierWeightsSpec | None = None


class WholeFreeDomainsTerm(_Model):
    """Whole free domains a placement breaks at ``level`` (a label key; absent: the finest)."""

    level: str | None = None


class SpareCapacityTerm(_Model):
    """GPUs per domain of ``level`` kept free for failures: ``gpus`` or ``percent`` of it."""

    level: str | None = None
    gpus: Annotated[int, Field(ge=0)] | None = None
    percent: Annotated[float, Field(ge=0, le=100, allow_inf_nan=False)] | None = None


class BalanceTerm(_Model):
    """Used share, after the placement, of the domains of ``level`` it touches (absent: coarsest)."""

    level: str | None = None


class PriorityTerm(_Model):
    """Communication cost scaled by ``priority / scale``: priority buys locality."""

    scale: Annotated[float, Field(gt=0, allow_inf_nan=False)] = 100.0


class TermSettings(_Model):
    """How each term is measured; every term has defaults."""

    communication: CommunicationTerm = CommunicationTerm()
    whole_free_domains: WholeFreeDomainsTerm = WholeFreeDomainsTerm()
    spare_capacity: SpareCapacityTerm = SpareCapacityTerm(percent=5.0)
    balance: BalanceTerm = BalanceTerm()
    priority: PriorityTerm = PriorityTerm()


class TermWeights(_Model):
    """Weights of the normalised terms; a term left out weighs 0."""

    communication: Weight = 0.0
    whole_free_domains: Weight = 0.0
    spare_capacity: Weight = 0.0
    balance: Weight = 0.0
    priority: Weight = 0.0

    def of(self, term: TermName) -> float:
        """The weight of ``term``."""
        return float(getattr(self, _ATTRIBUTE[term]))


class Tier(_Model):
    """One lexicographic tier: a term, and how far from the best a candidate may stay.

    Attributes:
        term: the term ranked.
        tolerance: relative slack: candidates within ``best * (1 + tolerance)`` go on.
    """

    term: TermName
    tolerance: Annotated[float, Field(ge=0, allow_inf_nan=False)] = 0.0


class Objective(_Model):
    """A gang objective: weights or tiers over the terms, term settings, tie-breaks.

    Attributes:
        kind: always ``GangObjective``.
        name: a name for reports.
        weights: the weighted-sum form; exclusive with ``tiers``.
        tiers: the lexicographic form; exclusive with ``weights``.
        terms: how each term is measured.
        tie_breaks: applied in order after the terms; ``lowerIndex`` always closes the list.
    """

    kind: Literal["GangObjective"]
    name: str = "objective"
    weights: TermWeights | None = None
    tiers: tuple[Tier, ...] | None = None
    terms: TermSettings = TermSettings()
    tie_breaks: tuple[TieBreak, ...] = ("tighterFit", "lowerIndex")

    def used_terms(self) -> tuple[TermName, ...]:
        """The terms that can change a decision, in the order they count."""
        if self.tiers is not None:
            return tuple(t.term for t in self.tiers)
        weights = self.weights or TermWeights()
        return tuple(t for t in TERMS if weights.of(t) > 0)


_ATTRIBUTE: dict[TermName, str] = {
    "communication": "communication",
    "wholeFreeDomains": "whole_free_domains",
    "spareCapacity": "spare_capacity",
    "balance": "balance",
    "priority": "priority",
}
