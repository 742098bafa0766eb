"""The definitions in use, with one override rule for every front end.

The catalog's built-in definitions come first, then the cluster's definition objects
(``WorkloadMap`` and ``Karta``), then the files given with ``--definitions``: a later
source wins per kind. The CLI, the operator and the benchmarks all build their registry
here, so the rule is written once.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from wlmap.definitions.document import Definition
    from wlmap.definitions.registry import Registry


@dataclass(frozen=True)
class Definitions:
    """A merged registry and what merging it found worth a warning."""

    registry: Registry
    warnings: tuple[str, ...] = ()


@dataclass(frozen=True)
class DefinitionSet:
    """Where the definitions in use come from.

    Attributes:
        files: files or folders given with ``--definitions``; they win over the cluster's.
        cluster: definitions read from cluster objects, with their origins (as
            :func:`wlmap.sources.entries.origin_of` names them); they override the
            catalog's, and a second one for the same kind is warned of.
    """

    files: Sequence[str] = ()
    cluster: Sequence[tuple[Definition, str]] = field(default_factory=tuple)

    def merge(self) -> Definitions:
        """The registry: built-in, then the cluster's, then the files' definitions.

        Raises:
            DefinitionError: a file given with ``--definitions`` is unreadable or invalid.
        """
        from wlmap.catalog import builtin_registry  # noqa: PLC0415 - loaded when first used
        from wlmap.definitions import load_definitions  # noqa: PLC0415
        from wlmap.sources.entries import is_from_cluster  # noqa: PLC0415 - start-up cost

        registry = builtin_registry()
        warnings: list[str] = []
        for definition, origin in self.cluster:
            gvk = definition.root_gvk
            previous = registry.find(gvk.api_version, gvk.kind) if gvk else None
            if (
                previous
                and is_from_cluster(previous.origin)
                and previous.definition.root_gvk == gvk
            ):
                warnings.append(
                    f"{gvk}: {origin} overrides {previous.origin}; keep one cluster "
                    "definition per kind"
                )
            registry.add(definition, origin)
        registry.collisions.clear()  # cluster definitions are meant to override built-in ones
        for source in self.files:
            registry.extend(load_definitions(source), source)
        warnings.extend(registry.collisions)
        return Definitions(registry, tuple(warnings))


def definitions_in_use(
    *, files: Sequence[str] = (), cluster: Iterable[tuple[Definition, str]] = ()
) -> Registry:
    """The registry of :meth:`DefinitionSet.merge`, for callers that report no warnings."""
    return DefinitionSet(files, tuple(cluster)).merge().registry
