"""A cluster as a planner sees it: GPU nodes in a topology, and the GPUs pods hold on them.

The input is what ``kubectl get nodes,pods -A -o yaml`` prints (or the same objects read
live): every object a plain dict. Nodes become a :class:`Topology` by their level labels;
each pod bound to a node (``spec.nodeName`` set) and not finished takes its GPUs from
that node, so the :class:`FreeCapacity` is what the scheduler would see. The rules follow
kube-scheduler's NodeResourcesFit: a pod's request is the effective request (the larger
of the containers' sum and any init container, plus overhead), and a pod in phase
``Succeeded`` or ``Failed`` no longer holds its resources. A pod not yet bound holds
nothing; it is kept as pending, since it competes for the same GPUs.

Which nodes count, as Kueue's Topology Aware Scheduling counts them: nodes with GPUs and
every level label; a cordoned node (``spec.unschedulable``) takes no new pods and is left
out. GPU nodes without a level label are left out with a warning; when none has it, the
level is an error. Taints are not read (GPU pods usually tolerate the GPU taint).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from wlmap.errors import PlacementInputError, WlmapError
from wlmap.placement.gangs import (
    HOSTNAME_LABEL,
    FreeCapacity,
    Topology,
    TopologyError,
    build_topology,
)
from wlmap.placement.nodes import GPU_RESOURCE, nodes_from_objects
from wlmap.workload.resources import pod_resources

__all__ = ["FINISHED_PHASES", "HeldGpus", "Occupancy", "PendingPod", "pod_gpus", "read_occupancy"]

FINISHED_PHASES = frozenset({"Succeeded", "Failed"})

# The workload a pod belongs to, as ``Kind namespace/name`` (its owner chain's top).
OwnerOf = Callable[[Mapping[str, Any]], str]


@dataclass(frozen=True, slots=True)
class HeldGpus:
    """GPUs that one workload's running pods hold on one node."""

    workload: str
    node: int
    gpus: int
    pods: int


@dataclass(frozen=True, slots=True)
class PendingPod:
    """A pod waiting for a node: its workload and the GPUs it asks for."""

    workload: str
    name: str
    gpus: int


@dataclass
class Occupancy:
    """The topology, its free capacity after the running pods, and who holds what.

    Attributes:
        name: the cluster's name (a file or a context), for reports.
        topology: the GPU nodes grouped by the level labels.
        capacity: free GPUs per node and domain, running pods taken.
        held: GPUs held per (workload, node).
        pending: pods not yet bound, in input order.
        warnings: what was left out, and why.
    """

    name: str
    topology: Topology
    capacity: FreeCapacity
    held: list[HeldGpus] = field(default_factory=list)
    pending: list[PendingPod] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    _index: tuple[list[HeldGpus], dict[str, list[HeldGpus]]] | None = field(
        default=None, repr=False, compare=False
    )

    def held_by(self, workload: str) -> list[HeldGpus]:
        """What one workload holds, node by node."""
        return list(self._by_workload().get(workload, ()))

    def workloads(self) -> list[str]:
        """The workloads holding GPUs, most GPUs first (then by name)."""
        totals = {w: sum(h.gpus for h in held) for w, held in self._by_workload().items()}
        return sorted(totals, key=lambda w: (-totals[w], w))

    def _by_workload(self) -> dict[str, list[HeldGpus]]:
        # indexed once per list of holdings: a reason asks once per holding workload
        if self._index is None or self._index[0] is not self.held:
            grouped: dict[str, list[HeldGpus]] = {}
            for h in self.held:
                grouped.setdefault(h.workload, []).append(h)
            self._index = (self.held, grouped)
        return self._index[1]


def read_occupancy(
    objects: Sequence[Mapping[str, Any]],
    levels: Sequence[str],
    owner_of: OwnerOf,
    *,
    name: str,
    skip: Callable[[Mapping[str, Any]], bool] = lambda pod: False,
) -> Occupancy:
    """The occupancy of the cluster whose nodes and pods are ``objects``.

    Args:
        objects: Nodes and Pods (other kinds are ignored), e.g. a dump's items.
        levels: the level label keys, coarsest first (a trailing hostname is the node).
        owner_of: names the workload of a pod.
        name: where the objects came from, for errors and reports.
        skip: pods to leave out (the planned workload's own, which a plan replaces).

    Raises:
        PlacementInputError: no Node objects, no GPU node, a level no GPU node has, or a
            bad node object.
    """
    node_objects = [o for o in objects if o.get("kind") == "Node"]
    if not node_objects:
        raise PlacementInputError(
            "no Node objects in it (expected `kubectl get nodes,pods -A -o yaml`)",
            file=name,
            row=None,
            column=None,
        )
    warnings: list[str] = []
    cordoned = {
        str((o.get("metadata") or {}).get("name"))
        for o in node_objects
        if (o.get("spec") or {}).get("unschedulable")
    }
    nodes = [n for n in nodes_from_objects(list(node_objects), file=name) if n.name not in cordoned]
    gpu_nodes = [n for n in nodes if n.gpus > 0]
    if not gpu_nodes:
        raise PlacementInputError(
            f"no schedulable node has {GPU_RESOURCE}", file=name, row=None, column=None
        )
    keys = [k for k in levels if k != HOSTNAME_LABEL]
    for key in keys:
        lacking = [n.name for n in gpu_nodes if key not in n.labels]
        if len(lacking) == len(gpu_nodes):
            raise PlacementInputError(
                f"no GPU node has the level label {key!r}; give --levels with label keys "
                f"the nodes carry (coarsest first)",
                file=name,
                row=None,
                column=None,
            )
        if lacking:
            shown = ", ".join(lacking[:3]) + (", ..." if len(lacking) > 3 else "")
            warnings.append(
                f"{name}: {len(lacking)} GPU node(s) lack the label {key!r} and are left out: "
                f"{shown}"
            )
    # in name order, as the API server lists them: a plan (its ties broken by index) is
    # then the same from a dump, a live read or the controller's watched copy, whatever
    # order the nodes arrived in
    kept = sorted((n for n in gpu_nodes if all(k in n.labels for k in keys)), key=lambda n: n.name)
    if cordoned:
        warnings.append(f"{name}: {len(cordoned)} cordoned node(s) left out")
    try:
        topology = build_topology(levels, kept)
    except TopologyError as exc:
        raise PlacementInputError(str(exc), file=name, row=None, column=None) from None
    occupancy = Occupancy(name, topology, FreeCapacity(topology), warnings=warnings)
    _take_pods(occupancy, objects, owner_of, skip)
    return occupancy


def _take_pods(
    occupancy: Occupancy,
    objects: Sequence[Mapping[str, Any]],
    owner_of: OwnerOf,
    skip: Callable[[Mapping[str, Any]], bool],
) -> None:
    index = {n.name: i for i, n in enumerate(occupancy.topology.nodes)}
    held: dict[tuple[str, int], list[int]] = {}
    over: list[str] = []
    for pod in objects:
        if pod.get("kind") != "Pod" or skip(pod):
            continue
        status = pod.get("status") or {}
        if status.get("phase") in FINISHED_PHASES:
            continue
        gpus = pod_gpus(pod)
        spec = pod.get("spec") or {}
        node_name = spec.get("nodeName")
        metadata = pod.get("metadata") or {}
        workload = owner_of(pod)
        if not node_name:
            if gpus:
                occupancy.pending.append(PendingPod(workload, str(metadata.get("name")), gpus))
            continue
        node = index.get(str(node_name))
        if node is None or not gpus:
            continue  # a node outside the topology, or a pod without GPUs
        free = int(occupancy.capacity.node_free[node])
        if gpus > free:  # the dump was taken mid-change, or the node shrank
            over.append(f"{metadata.get('namespace')}/{metadata.get('name')} on {node_name}")
            gpus = free
        occupancy.capacity.take(node, gpus)
        entry = held.setdefault((workload, node), [0, 0])
        entry[0] += gpus
        entry[1] += 1
    if over:
        shown = ", ".join(over[:3]) + (f" and {len(over) - 3} more" if len(over) > 3 else "")
        occupancy.warnings.append(
            f"{occupancy.name}: {len(over)} pod(s) ask for more GPUs than their node had left "
            f"({shown}); each is counted as what was left"
        )
    occupancy.held = [
        HeldGpus(workload, node, gpus, pods) for (workload, node), (gpus, pods) in held.items()
    ]


def pod_gpus(pod: Mapping[str, Any]) -> int:
    """Whole GPUs of ``nvidia.com/gpu`` (the resource nodes are counted in) a pod requests."""
    try:
        requests = pod_resources(pod.get("spec") or {}).requests
    except WlmapError:
        return 0
    value = requests.get(GPU_RESOURCE)
    return int(value) if value is not None else 0
