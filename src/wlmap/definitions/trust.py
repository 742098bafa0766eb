"""Which definition objects are trusted: run on the shared in-process jq engine, without
the untrusted engine's bounds on time, memory and output.

Only the built-in catalog marks its definitions trusted, as it parses its files; every
other definition (a file's, a cluster object's) is untrusted. The mark lives here, below
both the catalog and the interpretation, so that ``wlmap.workload`` chooses the engine
without knowing where a definition came from.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from wlmap.definitions.document import Definition

# ids of the trusted definition objects: the catalog keeps its parsed definitions for the
# whole process, so an id is never reused for another object
_TRUSTED: set[int] = set()


def trust(definitions: Iterable[Definition]) -> None:
    """Mark definition objects trusted (for the built-in catalog's loader only)."""
    _TRUSTED.update(id(d) for d in definitions)


def is_trusted(definition: Definition) -> bool:
    """Whether a definition object was marked trusted."""
    return id(definition) in _TRUSTED


__all__ = ["is_trusted", "trust"]
