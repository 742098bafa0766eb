"""Reading workloads: the views of the objects read together, and the objects no
definition covers, by one rule for every front end.

An object is uncovered when no definition maps its kind, it is not of a kind that never
carries a workload (a Service, a ConfigMap), and no definition reads objects of its kind
by reference (a TrainJob's ClusterTrainingRuntime is read through the TrainJob).
"""

from __future__ import annotations

import gc
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from wlmap.definitions.registry import Registry
    from wlmap.sources.manifests import Manifest
    from wlmap.sources.workloads import Found, WorkloadReader
    from wlmap.views.listing import Listed

Warn = Callable[[str], None]
"""Where a use case reports what it could not read or left out (a front end's stderr,
a list, a metrics counter)."""

Progress = Callable[["Sequence[Manifest]"], "Iterable[Manifest]"]
"""Wraps the objects being read in a progress display (or returns them as they are)."""


def _silent(manifests: Sequence[Manifest]) -> Iterable[Manifest]:
    return manifests


@dataclass(frozen=True)
class Reading:
    """The workloads in an input, in input order, and the objects no definition covers."""

    found: list[Found]
    uncovered: list[Manifest]

    @property
    def top_level(self) -> list[Found]:
        """The workloads no other workload in the input owns."""
        return [f for f in self.found if f.top_level]


@dataclass(frozen=True)
class Listing:
    """A listing row per workload in an input, and the objects no definition covers."""

    rows: list[Listed]
    uncovered: list[Manifest]


def uncovered_warning(manifest: Manifest) -> str:
    """What is said of an object no definition covers."""
    return (
        f"{manifest.origin}: no definition covers {manifest.obj.get('kind')} "
        f"({manifest.obj.get('apiVersion')})"
    )


def view_warnings(found: Iterable[Found]) -> Iterator[str]:
    """What could not be read in each workload, named as kubectl names it."""
    for item in found:
        for warning in item.view.warnings:
            yield f"{item.view.kind}/{item.view.name}: {warning}"


@dataclass(frozen=True)
class Workloads:
    """Workloads read with the definitions in use.

    Attributes:
        registry: the definitions in use (see :class:`wlmap.app.DefinitionSet`).
        warn: where unreadable files and empty inputs are reported.
        progress: a progress display over the objects being interpreted.
    """

    registry: Registry
    warn: Warn
    progress: Progress = _silent

    def files(self, sources: Sequence[str]) -> list[Manifest]:
        """Every object in files, folders or standard input; unreadable files are warned of.

        Raises:
            ManifestError: nothing could be read (the first error; the others are warned of).
        """
        from wlmap.errors import ManifestError  # noqa: PLC0415 - loaded when first used
        from wlmap.sources.manifests import read_manifests  # noqa: PLC0415

        errors: list[ManifestError] = []
        manifests = read_manifests(sources, errors)
        if errors and not manifests:
            for error in errors[1:]:
                self.warn(str(error))
            raise errors[0]  # reported once, as the error
        for error in errors:
            self.warn(str(error))
        if not manifests:
            self.warn(f"no objects in {', '.join(sources)}")
        return manifests

    def from_files(self, sources: Sequence[str]) -> Reading:
        """The workloads in files, with uncovered objects and unreadable parts warned of."""
        reading = self.read(self.files(sources))
        for manifest in reading.uncovered:
            self.warn(uncovered_warning(manifest))
        for warning in view_warnings(reading.top_level):
            self.warn(warning)
        return reading

    def read(self, manifests: list[Manifest], *, pods_listed: bool = False) -> Reading:
        """Every workload in the inputs (in input order) and the uncovered objects.

        Args:
            pods_listed: the inputs hold every pod in scope, so a workload without pods
                has none running.
        """
        from wlmap.sources.workloads import WorkloadReader  # noqa: PLC0415 - loaded when used

        reader = WorkloadReader(self.registry, manifests, pods_listed=pods_listed)
        with _collector_paused():
            found, uncovered = reader.read(self.progress(manifests))
        return Reading(found, uncovered)

    def listing(self, manifests: list[Manifest], *, pods_listed: bool = False) -> Listing:
        """A listing row per workload in the inputs, in input order, and the uncovered
        objects (``pods_listed`` as for :meth:`read`).

        Large inputs are interpreted by one forked worker per core: each row is small,
        and the workers share the parsed input and compiled definitions with the parent.
        """
        from wlmap.sources.entries import prepare_entry  # noqa: PLC0415 - loaded when used
        from wlmap.sources.workloads import WorkloadReader  # noqa: PLC0415

        workers = _workers(len(manifests))
        reader = WorkloadReader(self.registry, manifests, pods_listed=pods_listed)
        uncovered = [m for m in manifests if reader.uncovers(m.obj)]
        if workers == 1:
            with _collector_paused():
                return Listing(_rows(reader, self.progress(manifests)), uncovered)
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
        return Listing([row for part in parts for row in part], uncovered)


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
