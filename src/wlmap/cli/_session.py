"""What every command shares: the merged definitions, and the workloads found in the input
(read by :mod:`wlmap.sources.workloads`, the use case the operator shares)."""

from __future__ import annotations

import gc
import os
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING

from wlmap.cli._output import Output

if TYPE_CHECKING:
    from wlmap.definitions.document import Definition
    from wlmap.definitions.registry import Registry
    from wlmap.sources.manifests import Manifest
    from wlmap.sources.workloads import Found, WorkloadReader
    from wlmap.views.listing import Listed


@dataclass
class Session:
    """Definitions from the catalog and ``--definitions``, later sources winning per kind."""

    definition_sources: Sequence[str] = ()
    output: Output = field(default_factory=Output)
    kubeconfig: str | None = None
    context: str | None = None
    cluster_definitions: list[tuple[Definition, str]] = field(default_factory=list)

    @cached_property
    def registry(self) -> Registry:
        """Built-in definitions, then the cluster's (live mode), then ``--definitions``."""
        from wlmap.app.definitions import DefinitionSet  # noqa: PLC0415 - loaded when first used

        merged = DefinitionSet(self.definition_sources, self.cluster_definitions).merge()
        for warning in merged.warnings:
            self.output.warn(warning)
        return merged.registry

    def use_cluster_definitions(self, definitions: Sequence[tuple[Definition, str]]) -> None:
        """Merge definitions read from the cluster (before the registry is first used)."""
        self.cluster_definitions = list(definitions)
        self.__dict__.pop("registry", None)

    def files(self, sources: Sequence[str]) -> list[Manifest]:
        """Every object in files, folders or standard input; unreadable files are warned of."""
        from wlmap.errors import ManifestError  # noqa: PLC0415 - loaded when first used
        from wlmap.sources.manifests import read_manifests  # noqa: PLC0415

        errors: list[ManifestError] = []
        manifests = read_manifests(sources, errors)
        if errors and not manifests:
            for error in errors[1:]:
                self.output.warn(str(error))
            raise errors[0]  # reported once, as the error
        for error in errors:
            self.output.warn(str(error))
        if not manifests:
            self.output.warn(f"no objects in {', '.join(sources)}")
        return manifests

    def workloads(self, sources: Sequence[str]) -> list[Found]:
        """The top-level workloads in files, folders or standard input.

        Objects no definition covers are warned of; when they are all there is, the
        command ends with the no-definition exit code, as ``describe`` and ``get`` do.
        """
        found, uncovered = self.read(self.files(sources))
        self.warn_uncovered(uncovered)
        top = [f for f in found if f.top_level]
        self.warn_views(top)
        if uncovered and not top:
            from wlmap.cli._exits import NO_DEFINITION, Exit  # noqa: PLC0415

            raise Exit(NO_DEFINITION)
        return top

    def warn_views(self, found: Iterable[Found]) -> None:
        """Warn of what could not be read in each workload (named, as kubectl names it)."""
        for item in found:
            for warning in item.view.warnings:
                self.output.warn(f"{item.view.kind}/{item.view.name}: {warning}")

    def uncovered(self, manifests: Iterable[Manifest]) -> list[Manifest]:
        """The objects no definition covers (objects that never carry a workload aside)."""
        from wlmap.sources.workloads import NOT_WORKLOADS  # noqa: PLC0415 - loaded when used

        found = []
        for manifest in manifests:
            api_version, kind = manifest.obj.get("apiVersion"), manifest.obj.get("kind")
            if kind in NOT_WORKLOADS:
                continue
            if (
                not isinstance(api_version, str)
                or not isinstance(kind, str)
                or self.registry.find(api_version, kind) is None
            ):
                found.append(manifest)
        return found

    def warn_uncovered(self, uncovered: Iterable[Manifest]) -> None:
        """Warn of each object no definition covers."""
        for manifest in uncovered:
            self.output.warn(
                f"{manifest.origin}: no definition covers {manifest.obj.get('kind')} "
                f"({manifest.obj.get('apiVersion')})"
            )

    def listing(self, manifests: list[Manifest], *, pods_listed: bool = False) -> list[Listed]:
        """A listing row per workload in the inputs, in input order (``pods_listed``: the
        inputs hold every pod in scope, so a workload without pods has none running).

        Large inputs are interpreted by one forked worker per core: each row is small,
        and the workers share the parsed input and compiled definitions with the parent.
        """
        from wlmap.sources.entries import prepare_entry  # noqa: PLC0415 - loaded when used
        from wlmap.sources.workloads import WorkloadReader  # noqa: PLC0415

        workers = _workers(len(manifests))
        reader = WorkloadReader(self.registry, manifests, pods_listed=pods_listed)
        if workers == 1:
            with _collector_paused():
                return _rows(reader, self.output.progress(manifests, len(manifests), "reading"))
        import multiprocessing  # noqa: PLC0415 - only large inputs need it

        global _FORKED  # noqa: PLW0603 - handed to forked workers, which inherit it
        _FORKED = (reader, manifests)
        # Compile what the input uses once, before the workers are forked (compiling
        # every definition of the catalog would cost more than a slice of the input).
        used = {id(e): e for e in map(reader.entry, (m.obj for m in manifests)) if e}
        for entry in used.values():
            prepare_entry(entry)
        size = -(-len(manifests) // workers)
        bounds = [
            (start, min(start + size, len(manifests))) for start in range(0, len(manifests), size)
        ]
        with multiprocessing.get_context("fork").Pool(workers) as pool:
            parts = pool.map(_list_slice, bounds)
        _FORKED = None
        return [row for part in parts for row in part]

    def read(
        self, manifests: list[Manifest], *, pods_listed: bool = False
    ) -> tuple[list[Found], list[Manifest]]:
        """Every workload in the inputs (in input order) and the uncovered objects."""
        from wlmap.sources.workloads import WorkloadReader  # noqa: PLC0415 - loaded when used

        reader = WorkloadReader(self.registry, manifests, pods_listed=pods_listed)
        with _collector_paused():
            return reader.read(self.output.progress(manifests, len(manifests), "reading"))


_FORKED: tuple[WorkloadReader, list[Manifest]] | None = None
PARALLEL_THRESHOLD = 2000


def _workers(count: int) -> int:
    """Worker processes for ``count`` objects: one per core for large inputs, where fork exists."""
    import multiprocessing  # noqa: PLC0415 - only large inputs need it

    cores = os.cpu_count() or 1
    if (
        count < PARALLEL_THRESHOLD
        or cores < 2
        or "fork" not in multiprocessing.get_all_start_methods()
    ):
        return 1
    return min(cores, 8)


def _list_slice(bounds: tuple[int, int]) -> list[Listed]:
    """Listing rows of one slice of the input, in a forked worker."""
    assert _FORKED is not None, "set by the parent before forking"
    reader, manifests = _FORKED
    with _collector_paused():
        return _rows(reader, manifests[bounds[0] : bounds[1]])


def _rows(reader: WorkloadReader, manifests: Iterable[Manifest]) -> list[Listed]:
    from wlmap.views.listing import Listed  # noqa: PLC0415 - loaded when used

    found, _ = reader.read(manifests)
    return [Listed.of(f.view, f.manifest.obj, f.origin, f.top_level) for f in found]


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while views are built.

    The input and the views live as long as the command and hold no cycles worth
    collecting; collection passes over the growing heap would otherwise cost 40% of a
    10,000-object run.
    """
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()
