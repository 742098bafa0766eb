"""Drafting definitions for workload kinds nobody has mapped, from CRDs, samples and pods.

:func:`infer` reads a CRD's OpenAPI schema for pod templates (by shape), the roles and
counts around them, suspend fields, conditions and phases; sample objects fill in what
schemaless parts leave open, and their pods show the labels that select each role.
Every choice carries its :class:`Evidence`; guesses are listed for review.
"""

from wlmap.infer._evidence import Evidence, Strength
from wlmap.infer._vocabulary import VOCABULARY, classify
from wlmap.infer.draft import Draft, Format, infer

__all__ = ["VOCABULARY", "Draft", "Evidence", "Format", "Strength", "classify", "infer"]
