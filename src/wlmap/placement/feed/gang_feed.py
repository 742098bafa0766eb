"""The gangs of a mapped workload, with the topology intent people already write down.

Gangs come from the workload view's gang groups (:func:`wlmap.workload.gangs.scheduled_gangs`):
a group with subgroups gives one gang per subgroup, a group without gives one. A group's
pods are the pods of its member components and their descendants. When the group's
minimum is a whole fraction of those pods (a LeaderWorkerSet's group minimum is one
replica's size), each of the ``pods / minimum`` units is a gang of its own; otherwise the
gang takes each component's minimum pods.

Pods take whole GPUs (the view's ``<domain>/gpu`` requests plus per-pod DRA GPUs); a gang
is one pod size, so components of different sizes become gangs of their own and
components without GPUs are left out, each with a warning.

Topology intent, most specific first (the first source that sets a field wins):

1. the pod template's Kueue annotations (Kueue docs, "Topology Aware Scheduling"):
   ``kueue.x-k8s.io/podset-required-topology``, ``podset-preferred-topology``, and the
   pair ``podset-slice-required-topology`` + ``podset-slice-size`` (pods per slice; Kueue
   validates the two together and the size against the pod count);
   KAI's segment annotations ``kai.scheduler/segment-size`` +
   ``kai.scheduler/segment-topology-required-placement`` (KAI's segmented-subgroups design);
2. the definition's podGroup topology, of the subgroup, then of the group
   (``requiredTopologyLevel`` / ``preferredTopologyLevel``);
3. the workload object's KAI annotations (KAI docs/topology/README.md):
   ``kai.scheduler/topology-required-placement``, ``kai.scheduler/topology-preferred-placement``
   (``kai.scheduler/topology`` names the Topology object and is kept for the report).

A workload whose definition declares no gang (a StatefulSet, a Deployment) but whose GPU
pods carry a topology intent (a Kueue pod-template annotation above, or KAI's workload
annotations) is one gang of all its GPU pods, as Kueue admits a StatefulSet's replicas
as one pod group (its webhook sets the group's total count to ``spec.replicas``) and
places the group by the template's TAS annotations. Without any intent it has no gang.

Levels are node-label keys; :func:`to_gang` turns them into the topology's level indices,
and a level the topology lacks is an error naming the workload, the source and the levels.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal

from wlmap.errors import PlacementInputError
from wlmap.placement.gangs import Gang, Topology, TopologyError
from wlmap.scheduler_names import (
    KAI_PREFERRED,
    KAI_REQUIRED,
    KAI_SEGMENT_LEVEL,
    KAI_SEGMENT_SIZE,
    KAI_TOPOLOGY,
    KUEUE_PREFERRED,
    KUEUE_REQUIRED,
    KUEUE_SLICE_LEVEL,
    KUEUE_SLICE_SIZE,
)
from wlmap.workload import ComponentView, GangGroup, WorkloadView
from wlmap.workload.gangs import scheduled_gangs
from wlmap.workload.gpus import is_gpu_resource

__all__ = ["INTENT_GROUP", "Intent", "WorkloadGang", "gang_requests", "to_gang"]

# (slice level annotation, slice size annotation) pairs, Kueue first
_SLICES = ((KUEUE_SLICE_LEVEL, KUEUE_SLICE_SIZE), (KAI_SEGMENT_LEVEL, KAI_SEGMENT_SIZE))
# what makes the GPU pods of a workload without a gang one group: on a pod template, on the workload
_POD_INTENT = (KUEUE_REQUIRED, KUEUE_PREFERRED, KUEUE_SLICE_LEVEL, KAI_SEGMENT_LEVEL)
_WORKLOAD_INTENT = (KAI_REQUIRED, KAI_PREFERRED)
INTENT_GROUP = "pods"
"""The name of the one gang of a workload without a gang whose GPU pods carry an intent."""


@dataclass(frozen=True, slots=True)
class Intent:
    """A topology level asked for, and where it was written.

    Attributes:
        level: the node-label key of the level.
        source: where it came from, e.g. ``annotation kueue.x-k8s.io/podset-required-topology
            of component worker``.
    """

    level: str
    source: str


@dataclass(frozen=True, slots=True)
class WorkloadGang:
    """One gang of a workload, with its intent still as level names.

    Attributes:
        name: ``Kind namespace/name gang <group>`` (with ``#<unit>`` for repeated units).
        components: the components whose pods form it.
        pods: pods placed together.
        gpus_per_pod: whole GPUs per pod.
        required: the level one domain of which must hold every pod.
        preferred: the level one domain of which should hold every pod.
        slice_size: pods per slice (0 for none).
        slice_level: the level one domain of which must hold each slice.
        topology_name: the Topology object the workload names, when it does.
    """

    name: str
    components: tuple[str, ...]
    pods: int
    gpus_per_pod: int
    required: Intent | None = None
    preferred: Intent | None = None
    slice_size: int = 0
    slice_level: Intent | None = None
    topology_name: str | None = None


def gang_requests(
    view: WorkloadView,
    *,
    annotations: Mapping[str, str] | None = None,
    file: str = "",
    warnings: list[str] | None = None,
) -> list[WorkloadGang]:
    """The gangs of a workload, with their topology intent.

    A workload whose definition declares no gang gives one gang of all its GPU pods when
    they carry a topology intent, and none without (see the module's docstring).

    Args:
        view: the workload's view.
        annotations: the workload object's own annotations (KAI reads them there).
        file: where the workload was read from, for errors.
        warnings: what is left out is appended here.

    Raises:
        PlacementInputError: a pod's GPUs are not whole, or a slice annotation is
            incomplete or does not divide the gang; naming the file, workload and source.
    """
    workload = f"{view.kind} {view.namespace or 'default'}/{view.name or '(generated name)'}"
    notes: list[str] = warnings if warnings is not None else []
    top = annotations or {}
    found: list[WorkloadGang] = []
    groups = scheduled_gangs(view.gang_groups)
    if not groups:
        intended = _intended_group(view, top)
        return (
            _gangs(view, workload, file, intended, None, top, notes, every=True) if intended else []
        )
    for group in groups:
        parts = group.sub_groups or (group,)
        for part in parts:
            outer = group if part is not group else None
            found.extend(_gangs(view, workload, file, part, outer, top, notes))
    return found


def _intended_group(view: WorkloadView, top: Mapping[str, str]) -> GangGroup | None:
    """All GPU pods of a workload without a gang as one group, when a topology intent is
    written on one of their templates or on the workload; None without any."""
    gpu = [
        c
        for c in view.components
        if c.pods > 0 and c.template is not None and c.per_pod and (c.per_pod.gpus or c.per_pod.mig)
    ]
    on_pods = any(
        (((c.template or {}).get("metadata") or {}).get("annotations") or {}).get(key)
        for c in gpu
        for key in _POD_INTENT
    )
    if not gpu or not (on_pods or any(top.get(key) for key in _WORKLOAD_INTENT)):
        return None
    members = tuple(dict.fromkeys(c.name for c in gpu))
    pods = sum(c.pods for c in gpu)
    return GangGroup(INTENT_GROUP, pods, members, source="topology intent")


def _gangs(
    view: WorkloadView,
    workload: str,
    file: str,
    group: GangGroup,
    outer: GangGroup | None,
    top: Mapping[str, str],
    notes: list[str],
    *,
    every: bool = False,
) -> list[WorkloadGang]:
    """The gangs of one group; with ``every``, each component's pods all (not its minimum)."""
    members = _members(view, group.members)
    total = sum(c.pods for c in members)
    if not members or total == 0:
        return []
    units = total // group.min_member if 0 < group.min_member < total else 1
    if units > 1 and (total % group.min_member or any(c.pods % units for c in members)):
        units = 1
    by_size: dict[int, list[tuple[ComponentView, int]]] = {}
    for component in members:
        gpus = _whole_gpus(component, workload, file)
        count = component.pods // units if units > 1 else component.min_pods
        count = component.pods if every else count
        if gpus == 0:
            notes.append(
                f"{workload} component {component.name}: no GPUs, left out of gang placement"
            )
        elif count:
            by_size.setdefault(gpus, []).append((component, count))
    if len(by_size) > 1:
        notes.append(
            f"{workload} gang {group.name}: pods of {', '.join(map(str, sorted(by_size)))} GPUs "
            "are placed as one gang per size"
        )
    gangs = []
    for gpus, parts in sorted(by_size.items()):
        names = tuple(dict.fromkeys(c.name for c, _ in parts))
        label = group.name if len(by_size) == 1 else f"{group.name}/{gpus}gpu"
        intent = _intent([c for c, _ in parts], group, outer, top, workload, file)
        pods = sum(n for _, n in parts)
        for unit in range(units):
            suffix = f"#{unit}" if units > 1 else ""
            gang = WorkloadGang(f"{workload} gang {label}{suffix}", names, pods, gpus, *intent)
            _check_slice(gang, workload, file)
            gangs.append(gang)
    return gangs


def _members(view: WorkloadView, names: Sequence[str]) -> list[ComponentView]:
    """Pod-bearing component instances that are, or descend from, one of ``names``."""
    parent = {c.name: c.parent for c in view.components}
    chosen = []
    for component in view.components:
        if component.pods <= 0 or component.template is None:
            continue
        name: str | None = component.name
        while name is not None and name not in names:
            name = parent.get(name)
        if name is not None:
            chosen.append(component)
    return chosen


def _whole_gpus(component: ComponentView, workload: str, file: str) -> int:
    resources = component.per_pod
    if resources is None:
        return 0
    if resources.gpu_fraction.gpus or resources.mig:
        raise _fail(workload, file, f"component {component.name}: a gang pod takes whole GPUs")
    whole = sum(
        (v for k, v in resources.requests.items() if is_gpu_resource(k)), Decimal(0)
    ) + Decimal(resources.dra_gpus)
    if whole != int(whole):
        raise _fail(workload, file, f"component {component.name}: expected whole GPUs, got {whole}")
    return int(whole)


def _intent(
    components: Sequence[ComponentView],
    group: GangGroup,
    outer: GangGroup | None,
    top: Mapping[str, str],
    workload: str,
    file: str,
) -> tuple[Intent | None, Intent | None, int, Intent | None, str | None]:
    own: dict[str, object] = {}  # each annotation from the first component that has it
    owner: dict[str, str] = {}
    for component in components:
        metadata = (component.template or {}).get("metadata") or {}
        for key, value in (metadata.get("annotations") or {}).items():
            if key not in own:
                own[key], owner[key] = value, f"of component {component.name}"
    required = _annotation(own, KUEUE_REQUIRED, owner)
    preferred = _annotation(own, KUEUE_PREFERRED, owner)
    outer_topology = outer.topology if outer is not None else None
    own_label = f"subgroup {group.name}" if outer is not None else "the group"
    for topology, label in ((group.topology, own_label), (outer_topology, "the group")):
        if topology:
            named = f"podGroup topology of {label}"
            if required is None and topology.required_topology_level:
                required = Intent(topology.required_topology_level, named)
            if preferred is None and topology.preferred_topology_level:
                preferred = Intent(topology.preferred_topology_level, named)
    workload_level = dict.fromkeys(top, "of the workload")
    required = required or _annotation(top, KAI_REQUIRED, workload_level)
    preferred = preferred or _annotation(top, KAI_PREFERRED, workload_level)
    size, level = 0, None
    for level_key, size_key in _SLICES:
        if (level_key in own) != (size_key in own):
            given, missing = (level_key, size_key) if level_key in own else (size_key, level_key)
            raise _fail(
                workload, file, f"annotation {given} {owner[given]}: {missing} must be set with it"
            )
        if level_key in own and level is None:
            text = str(own[size_key]).strip()
            if not text.isdigit() or int(text) < 1:
                raise _fail(
                    workload,
                    file,
                    f"annotation {size_key} {owner[size_key]}: expected a whole number of "
                    f"pods >= 1, got {text!r}",
                )
            size = int(text)
            level = Intent(str(own[level_key]), f"annotation {level_key} {owner[level_key]}")
    name = top.get(KAI_TOPOLOGY) or next(
        (t.topology_name for t in (group.topology, outer_topology) if t), None
    )
    return required, preferred, size, level, name


def _annotation(
    annotations: Mapping[str, object], key: str, owner: Mapping[str, str]
) -> Intent | None:
    value = annotations.get(key)
    return Intent(str(value), f"annotation {key} {owner[key]}") if value else None


def _check_slice(gang: WorkloadGang, workload: str, file: str) -> None:
    if gang.slice_size and gang.pods % gang.slice_size:
        source = gang.slice_level.source if gang.slice_level else "the slice size"
        raise _fail(
            workload,
            file,
            f"{source}: a slice of {gang.slice_size} pods must divide the gang's {gang.pods} pods",
        )


def to_gang(request: WorkloadGang, topology: Topology, *, file: str = "") -> Gang:
    """The gang with its levels as indices into ``topology``.

    Raises:
        PlacementInputError: a level is not in the topology; the message names the gang,
            the source of the level and the topology's levels.
    """

    def index(intent: Intent | None) -> int | None:
        if intent is None:
            return None
        try:
            return topology.level_index(intent.level)
        except TopologyError as exc:
            raise PlacementInputError(
                f"{request.name}: {intent.source}: {exc}", file=file, row=None, column=None
            ) from None

    slice_level = index(request.slice_level) if request.slice_size else None
    return Gang(
        name=request.name,
        pods=request.pods,
        gpus_per_pod=request.gpus_per_pod,
        required_level=index(request.required),
        preferred_level=index(request.preferred),
        slice_size=request.slice_size if slice_level is not None else 0,
        slice_level=slice_level,
        origin=", ".join(request.components),
    )


def _fail(workload: str, file: str, message: str) -> PlacementInputError:
    return PlacementInputError(f"{workload} {message}", file=file, row=None, column=None)
