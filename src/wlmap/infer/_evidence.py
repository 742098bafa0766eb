"""Evidence: why the draft says what it says, and which choices a person must confirm."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Strength(StrEnum):
    """How sure a choice is: shown in comments and in the review list."""

    SHAPE = "shape"  # the schema's structure proves it (a PodSpec has containers)
    SAMPLE = "sample"  # sample objects or their pods show it
    VOCABULARY = "vocabulary"  # a documented word list maps it (Succeeded -> Completed)
    GUESS = "guess"  # a name or a description suggests it: a person must confirm


@dataclass(frozen=True)
class Evidence:
    """One choice of the draft with where it comes from.

    Attributes:
        subject: what was chosen, e.g. ``component worker: replicasPath``.
        choice: the value written into the definition.
        source: where the evidence is (a schema path, a sample, a pod).
        reason: the words, shape or values that support it.
        strength: how sure the choice is; ``GUESS`` choices are listed for review.
    """

    subject: str
    choice: str
    source: str
    reason: str
    strength: Strength

    @property
    def needs_review(self) -> bool:
        """A person must confirm this choice before the definition is trusted."""
        return self.strength is Strength.GUESS

    def line(self) -> str:
        """One line for ``--explain``."""
        return f"{self.subject}: {self.choice}  [{self.strength}] {self.source}: {self.reason}"


def unmapped(what: str, where: str) -> Evidence:
    """Evidence for a native value no vocabulary word maps to a shared state."""
    return Evidence(what, "unmapped", where, "no vocabulary word", Strength.GUESS)
