"""Drafting definitions for workload kinds nobody has mapped, from CRDs, samples and pods.

:func:`infer` reads a CRD's OpenAPI schema for pod templates (by shape), the roles and
counts around them, suspend fields, conditions and phases; sample objects fill in what
schemaless parts leave open, and their pods show the labels that select each role. A
kind with no pod template of its own takes its pods from an object it names by reference
(a runtime), when that kind's CRD is given (:func:`candidate_kinds` lists the kinds named).
Every choice carries its :class:`Evidence`; guesses are listed for review.
"""

from wlmap.infer._evidence import Evidence, Strength
from wlmap.infer._references import candidate_kinds
from wlmap.infer._vocabulary import VOCABULARY, classify
from wlmap.infer.draft import Draft, Format, infer

__all__ = [
    "VOCABULARY",
    "Draft",
    "Evidence",
    "Format",
    "Strength",
    "candidate_kinds",
    "classify",
    "infer",
]
