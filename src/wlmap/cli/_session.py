"""What every command shares: the global options, the output, and the application layer's
definitions and workload reading bound to them (see :mod:`wlmap.app`)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING

from wlmap.cli._output import Output

if TYPE_CHECKING:
    from wlmap.app.live import Live, LiveRead, Request
    from wlmap.app.workloads import Listing, Reading, Workloads
    from wlmap.definitions.registry import Registry
    from wlmap.sources.manifests import Manifest
    from wlmap.sources.workloads import Found


@dataclass
class Session:
    """The global options of one command, and what it reads with them."""

    definition_sources: Sequence[str] = ()
    output: Output = field(default_factory=Output)
    kubeconfig: str | None = None
    context: str | None = None

    @cached_property
    def registry(self) -> Registry:
        """Built-in definitions, then ``--definitions`` (in live mode, the cluster's
        between them: see :meth:`live_read`)."""
        from wlmap.app.definitions import DefinitionSet  # noqa: PLC0415 - loaded when first used

        merged = DefinitionSet(self.definition_sources).merge()
        for warning in merged.warnings:
            self.output.warn(warning)
        return merged.registry

    @property
    def cluster(self) -> Live:
        """The cluster of ``--kubeconfig``/``--context``, read with ``--definitions``."""
        from wlmap.app.definitions import DefinitionSet  # noqa: PLC0415 - live mode only
        from wlmap.app.live import Live  # noqa: PLC0415

        definitions = DefinitionSet(self.definition_sources)
        return Live(self.output.warn, self.kubeconfig, self.context, definitions)

    def live_read(self, request: Request) -> LiveRead:
        """Read what ``request`` names from the cluster; the definitions in use become
        those merged with the cluster's stored ones."""
        read = self.cluster.read(request)
        self.use_registry(read.registry)
        return read

    def use_registry(self, registry: Registry) -> None:
        """Read with these definitions from now on (those merged with a cluster's)."""
        self.__dict__["registry"] = registry

    @property
    def reading(self) -> Workloads:
        """Workload reading with the definitions in use, warning on stderr."""
        from wlmap.app.workloads import Workloads  # noqa: PLC0415 - loaded when first used

        def progress(manifests: Sequence[Manifest]) -> Iterable[Manifest]:
            return self.output.progress(manifests, len(manifests), "reading")

        return Workloads(self.registry, self.output.warn, progress)

    def files(self, sources: Sequence[str]) -> list[Manifest]:
        """Every object in files, folders or standard input; unreadable files are warned of."""
        return self.reading.files(sources)

    def workloads(self, sources: Sequence[str]) -> list[Found]:
        """The top-level workloads in files, folders or standard input.

        Objects no definition covers are warned of; when they are all there is, the
        command ends with the no-definition exit code, as ``describe`` and ``get`` do.
        """
        reading = self.reading.from_files(sources)
        top = reading.top_level
        if reading.uncovered and not top:
            from wlmap.cli._exits import NO_DEFINITION, Exit  # noqa: PLC0415 - start-up cost

            raise Exit(NO_DEFINITION)
        return top

    def warn_views(self, found: Iterable[Found]) -> None:
        """Warn of what could not be read in each workload (named, as kubectl names it)."""
        from wlmap.app.workloads import view_warnings  # noqa: PLC0415 - loaded when first used

        for warning in view_warnings(found):
            self.output.warn(warning)

    def warn_uncovered(self, uncovered: Iterable[Manifest]) -> None:
        """Warn of each object no definition covers."""
        from wlmap.app.workloads import uncovered_warning  # noqa: PLC0415 - loaded when used

        for manifest in uncovered:
            self.output.warn(uncovered_warning(manifest))

    def listing(self, manifests: list[Manifest], *, pods_listed: bool = False) -> Listing:
        """A listing row per workload in the inputs, and the uncovered objects."""
        return self.reading.listing(manifests, pods_listed=pods_listed)

    def read(self, manifests: list[Manifest], *, pods_listed: bool = False) -> Reading:
        """Every workload in the inputs (in input order) and the uncovered objects."""
        return self.reading.read(manifests, pods_listed=pods_listed)
