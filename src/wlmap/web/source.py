"""What the page shows, as JSON documents: a :class:`Source` is asked for each page's data.

:class:`FileSource` reads the inputs of ``wlmap web -f`` once, on first ask, with the same
use cases as the CLI; what it could not read becomes a located message in ``problems``
(file, document, what was expected), never an exception reaching the page.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from wlmap.errors import WlmapError
from wlmap.web.documents import counts, workload_detail, workload_row

if TYPE_CHECKING:
    from wlmap.app.workloads import Reading
    from wlmap.sources.manifests import Manifest

WAITING_PHASES = frozenset({"Suspended", "Initializing", "Resuming"})


class Source(Protocol):
    """The data behind the pages; each method returns a JSON-ready document."""

    def workloads(self) -> dict[str, Any]: ...
    def workload(self, key: int) -> dict[str, Any] | None: ...
    def cluster(self) -> dict[str, Any]: ...
    def waiting(self) -> dict[str, Any]: ...
    def simulations(self) -> dict[str, Any]: ...


@dataclass(frozen=True)
class Inputs:
    """What ``wlmap web`` was given.

    Attributes:
        files: manifests, folders or dumps of workloads (and of nodes and pods).
        definitions: definition files beside the built-in ones.
        levels: node-label keys of the topology levels, coarsest first.
        cluster: a `kubectl get nodes,pods -A -o yaml` dump to map and plan on (default:
            the nodes and pods among ``files``).
        trace_nodes, trace_pods, policy: an openb node list and pod list placed by a
            packing policy, for the Cluster page instead of a dump.
        simulations: CSV files written by ``wlmap simulate``.
    """

    files: tuple[str, ...]
    definitions: tuple[str, ...] = ()
    levels: tuple[str, ...] = ()
    cluster: str | None = None
    trace_nodes: str | None = None
    trace_pods: str | None = None
    policy: str = "fgd"
    simulations: tuple[str, ...] = ()


@dataclass
class FileSource:
    """The pages' data from files, read once and kept (the files do not change)."""

    inputs: Inputs
    _lock: threading.RLock = field(default_factory=threading.RLock, repr=False)
    _cache: dict[str, Any] = field(default_factory=dict, repr=False)

    def _once(self, name: str, make: Callable[[], Any]) -> Any:
        with self._lock:
            if name not in self._cache:
                self._cache[name] = make()
            return self._cache[name]

    # -- reading -----------------------------------------------------------------------

    def _read(self) -> tuple[list[Manifest], Reading | None, list[str]]:
        return self._once("read", self._read_now)  # type: ignore[no-any-return]  # cached value of _read_now

    def _read_now(self) -> tuple[list[Manifest], Reading | None, list[str]]:
        from wlmap.app import DefinitionSet, Workloads, uncovered_warning  # noqa: PLC0415

        problems: list[str] = []
        try:
            merged = DefinitionSet(self.inputs.definitions).merge()
            problems.extend(merged.warnings)
            reading = Workloads(merged.registry, problems.append)
            manifests = reading.files(self.inputs.files)
            read = reading.read(manifests)
        except WlmapError as exc:
            return [], None, [*problems, str(exc)]
        problems.extend(uncovered_warning(m) for m in read.uncovered)
        return manifests, read, problems

    def _cluster_objects(self) -> tuple[str, list[dict[str, Any]]]:
        """The dump to map and plan on, and its objects (the inputs' own when none)."""
        if self.inputs.cluster is None:
            manifests, _, _ = self._read()
            return ", ".join(self.inputs.files), [m.obj for m in manifests]
        from wlmap.app import DefinitionSet, Workloads  # noqa: PLC0415

        ignored: list[str] = []
        reading = Workloads(DefinitionSet(()).merge().registry, ignored.append)
        return self.inputs.cluster, [m.obj for m in reading.files([self.inputs.cluster])]

    # -- pages -------------------------------------------------------------------------

    def workloads(self) -> dict[str, Any]:
        return self._once("workloads", self._workloads)  # type: ignore[no-any-return]  # cached document

    def _workloads(self) -> dict[str, Any]:
        _, read, problems = self._read()
        rows = [
            workload_row(found.view, found.manifest.obj, found.origin, key)
            for key, found in enumerate(read.found if read else [])
            if found.top_level
        ]
        rows.sort(key=lambda r: (r["namespace"] or "", r["kind"] or "", r["name"] or ""))
        return {"items": rows, "count": len(rows), "states": counts(rows), "problems": problems}

    def workload(self, key: int) -> dict[str, Any] | None:
        _, read, _ = self._read()
        if read is None or not 0 <= key < len(read.found):
            return None
        found = read.found[key]
        return workload_detail(found.view, found.origin)

    def cluster(self) -> dict[str, Any]:
        return self._once("cluster", self._cluster)  # type: ignore[no-any-return]  # cached document

    def _cluster(self) -> dict[str, Any]:
        from wlmap.app.cluster_map import map_from_objects, map_from_trace  # noqa: PLC0415

        try:
            if self.inputs.trace_nodes and self.inputs.trace_pods:
                found = map_from_trace(
                    self.inputs.trace_nodes, self.inputs.trace_pods, self.inputs.policy
                )
            else:
                from wlmap.app.plan_inputs import Attribution  # noqa: PLC0415
                from wlmap.sources.manifests import Manifest  # noqa: PLC0415

                name, objects = self._cluster_objects()
                owners = Attribution([Manifest(o, name) for o in objects])
                found = map_from_objects(objects, self.inputs.levels, owners.owner_of, name=name)
        except (WlmapError, ValueError) as exc:
            return {"domains": [], "problems": [str(exc)], "levels": [], "waiting": []}
        document = found.to_dict()
        document["problems"] = document.pop("warnings")
        return document

    def waiting(self) -> dict[str, Any]:
        return self._once("waiting", self._waiting)  # type: ignore[no-any-return]  # cached document

    def _waiting(self) -> dict[str, Any]:
        _, read, problems = self._read()
        found = [
            (key, f)
            for key, f in enumerate(read.found if read else [])
            if f.top_level and WAITING_PHASES & set(f.view.phases)
        ]
        items = []
        for key, item in found:
            view = item.view
            items.append(
                {
                    "key": key,
                    "kind": view.kind,
                    "namespace": view.namespace,
                    "name": view.name,
                    "phases": list(view.phases),
                    "gangs": [
                        {"name": g.name, "minMember": g.min_member} for g in view.gang_groups
                    ],
                    "plan": self._plan(item, problems),
                }
            )
        pods = self.cluster().get("waiting", [])
        return {"items": items, "pods": pods, "problems": problems}

    def _plan(self, item: Any, problems: list[str]) -> dict[str, Any] | None:
        """The plan's answer for one workload on the cluster dump, when one is given."""
        if not self.inputs.levels or (self.inputs.cluster is None and not self._has_nodes()):
            return None
        from wlmap.app import plan  # noqa: PLC0415 - loads the engine
        from wlmap.sources.manifests import Manifest  # noqa: PLC0415

        name, objects = self._cluster_objects()
        source = plan.ClusterSource(name, lambda: [Manifest(o, name) for o in objects])
        notes: list[str] = []
        try:
            ranked = plan.plan_clusters(
                [source],
                list(self.inputs.levels),
                [item],
                plan.policy_factory("wlmap", None),
                notes.append,
            )
        except WlmapError as exc:
            return {"error": str(exc)}
        return {**plan.plan_document(ranked)["items"][0], "notes": notes}

    def _has_nodes(self) -> bool:
        manifests, _, _ = self._read()
        return any(m.obj.get("kind") == "Node" for m in manifests)

    def simulations(self) -> dict[str, Any]:
        return self._once("simulations", self._simulations)  # type: ignore[no-any-return]  # cached

    def _simulations(self) -> dict[str, Any]:
        from wlmap.app.results import simulation_results  # noqa: PLC0415

        files, problems = [], []
        for path in self.inputs.simulations:
            try:
                files.append(simulation_results(path))
            except WlmapError as exc:
                problems.append(str(exc))
        return {"files": files, "problems": problems}


def located(problems: Sequence[str]) -> list[str]:
    """The problems as shown (kept as the library words them: each names its file)."""
    return list(problems)
