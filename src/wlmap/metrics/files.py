"""An index fed from files or dumps, for ``wlmap metrics -f``: the top-level workloads as
``describe`` shows them (their pods matched by owner chain, as ``describe`` does), the
nodes and the namespaces the input holds."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from wlmap.app import Workloads, uncovered_warning
from wlmap.errors import WlmapError
from wlmap.metrics.index import MetricsIndex
from wlmap.sources.workloads import WorkloadReader

__all__ = ["feed_objects", "index_files"]


def _labels(obj: Mapping[str, Any]) -> dict[str, str]:
    labels = (obj.get("metadata") or {}).get("labels") or {}
    return {str(k): str(v) for k, v in labels.items()} if isinstance(labels, Mapping) else {}


def _key(obj: Mapping[str, Any]) -> tuple[str, str, str, str]:
    metadata = obj.get("metadata") or {}
    return (
        str(obj.get("apiVersion") or ""),
        str(obj.get("kind") or ""),
        str(metadata.get("namespace") or ""),
        str(metadata.get("name") or ""),
    )


def feed_objects(
    index: MetricsIndex,
    reader: WorkloadReader,
    objects: Iterable[Mapping[str, Any]],
    warn: Callable[[str], None],
) -> None:
    """Feed the index every top-level workload, node and namespace of ``objects``.

    A workload its definition fails on is served with the state ``Unknown`` and counted
    as an evaluation error of that definition; a node that cannot be read is warned of.
    """
    objects = list(objects)
    seen: set[tuple[str, str, str, str]] = set()
    for obj in objects:
        if obj.get("apiVersion") != "v1":
            continue
        name = str((obj.get("metadata") or {}).get("name") or "")
        if obj.get("kind") == "Namespace":
            index.set_namespace_labels(name, _labels(obj))
        elif obj.get("kind") == "Node" and (problem := index.set_node(obj)) is not None:
            warn(f"Node/{name} left out: {problem}")
    for obj in objects:
        entry = reader.entry(obj)
        if entry is None or not reader.is_top_level(obj):
            continue
        try:
            view = reader.view(entry, obj)
        except WlmapError as exc:
            name = entry.definition.name
            warn(f"{obj.get('kind')}/{(obj.get('metadata') or {}).get('name')}: {exc}")
            index.set_failed(_key(obj), obj, name)
            continue
        key = _key(obj)
        if key in seen:  # two series of one name would break the scrape
            warn(
                f"{key[1]}/{key[3]} appears twice in {key[2] or 'no namespace'}; the last is served"
            )
        seen.add(key)
        pods = reader.inventory.pods_of(obj) or []
        index.set_workload(key, view, pods, labels=_labels(obj))


def index_files(
    workloads: Workloads,
    sources: Sequence[str],
    *,
    team_label: str,
    domain_keys: Sequence[str] | None = None,
) -> MetricsIndex:
    """An index of what files, folders or standard input hold, marked synced.

    Raises:
        ManifestError: nothing could be read.
    """
    manifests = workloads.files(sources)
    reader = WorkloadReader(workloads.registry, manifests)
    settings: dict[str, Any] = {"team_label": team_label}
    if domain_keys is not None:
        settings["domain_keys"] = tuple(domain_keys)
    index = MetricsIndex(**settings)
    for manifest in manifests:
        if reader.uncovers(manifest.obj) and manifest.obj.get("kind") != "Node":
            workloads.warn(uncovered_warning(manifest))
    feed_objects(index, reader, [m.obj for m in manifests], workloads.warn)
    index.synced = True
    return index
