"""The cluster map: every GPU of every node, who holds it (whole or a share), and which free
GPUs no waiting pod can use, grouped by topology domain.

Two inputs give one map: Node and Pod objects (a `kubectl get nodes,pods -A -o yaml` dump,
read by the same rules as ``wlmap plan``), or an openb node list with a pod list placed by
a packing policy, as ``wlmap simulate`` places it. Kubernetes does not say which device
of a node a pod holds, so shares are laid on a node's GPUs in pod order: whole GPUs on
free devices, fractions (``gpu-fraction``) first-fit on a device with room.

A free share is *fragmented* when no waiting pod fits on its node: by GPU model, by the
share one device has free, or by the number of whole free devices a multi-GPU pod asks.
With nothing waiting, nothing is marked.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from wlmap.errors import PlacementInputError, WlmapError

MILLI = 1000
HOSTNAME = "kubernetes.io/hostname"
MODEL_LEVEL = "GPU model"  # the grouping when no level is given
FINISHED_PHASES = frozenset({"Succeeded", "Failed"})  # pods that hold nothing, as plan reads


@dataclass(frozen=True, slots=True)
class Waiting:
    """A pod that waits for GPUs: its workload, name, model choice and request."""

    workload: str
    name: str
    gpus: int
    milli: int
    models: frozenset[str] | None = None


@dataclass
class MapNode:
    """One GPU node: its domain (a value per level), model and each device's holders."""

    name: str
    model: str | None
    domain: tuple[str, ...]
    holders: list[list[tuple[str, int]]]  # per device: (workload, thousandths)
    fragmented: bool = False

    def free(self, device: int) -> int:
        return MILLI - sum(m for _, m in self.holders[device])

    def fits(self, pod: Waiting) -> bool:
        """Whether ``pod`` fits on this node's free devices now."""
        if pod.models is not None and self.model not in pod.models:
            return False
        free = [self.free(d) for d in range(len(self.holders))]
        if pod.gpus > 1 or pod.milli >= MILLI:
            return sum(f == MILLI for f in free) >= pod.gpus
        return any(f >= pod.milli for f in free)

    def take(self, workload: str, gpus: int, milli: int) -> bool:
        """Lay a pod's devices on this node; False when they do not fit."""
        free = [self.free(d) for d in range(len(self.holders))]
        if milli >= MILLI:
            devices = [d for d, f in enumerate(free) if f == MILLI][:gpus]
        else:
            devices = [d for d, f in enumerate(free) if f >= milli][:1]
        if len(devices) < max(gpus, 1):
            return False
        for d in devices:
            self.holders[d].append((workload, min(milli, MILLI)))
        return True


@dataclass
class ClusterMap:
    """Nodes by domain, the waiting pods, and what was left out."""

    source: str
    levels: tuple[str, ...]
    nodes: list[MapNode]
    waiting: list[Waiting] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def mark_fragmented(self) -> None:
        """Mark the nodes whose free shares no waiting pod can use."""
        shapes = {(w.gpus, w.milli, w.models) for w in self.waiting}
        for node in self.nodes:
            has_free = any(node.free(d) > 0 for d in range(len(node.holders)))
            node.fragmented = (
                bool(shapes)
                and has_free
                and not any(node.fits(Waiting("", "", g, m, s)) for g, m, s in shapes)
            )

    def to_dict(self) -> dict[str, Any]:
        """The JSON document: domains (nodes in name order), totals, waiting shapes."""
        domains: dict[tuple[str, ...], list[MapNode]] = {}
        for node in sorted(self.nodes, key=lambda n: (n.domain, n.name)):
            domains.setdefault(node.domain, []).append(node)
        return {
            "source": self.source,
            "levels": list(self.levels),
            "domains": [
                {"path": list(path), "totals": _totals(nodes), "nodes": [_node(n) for n in nodes]}
                for path, nodes in domains.items()
            ],
            "totals": _totals(self.nodes),
            "waiting": [
                {"workload": w.workload, "name": w.name, "gpus": w.gpus, "gpuMilli": w.milli}
                for w in self.waiting
            ],
            "warnings": self.warnings,
        }


def _node(node: MapNode) -> dict[str, Any]:
    return {
        "name": node.name,
        "model": node.model,
        "fragmented": node.fragmented,
        "gpus": [[{"workload": w, "milli": m} for w, m in held] for held in node.holders],
    }


def _totals(nodes: Iterable[MapNode]) -> dict[str, Any]:
    gpus = used = free_whole = fragmented = nodes_count = 0
    for node in nodes:
        nodes_count += 1
        for d, held in enumerate(node.holders):
            gpus += 1
            used += sum(m for _, m in held)
            free = node.free(d)
            free_whole += free == MILLI
            fragmented += free if node.fragmented else 0
    return {
        "nodes": nodes_count,
        "gpus": gpus,
        "usedGpus": used / MILLI,
        "freeWholeGpus": free_whole,
        "fragmentedGpus": fragmented / MILLI,
    }


def map_from_objects(
    objects: Sequence[Mapping[str, Any]],
    levels: Sequence[str],
    owner_of: Callable[[Mapping[str, Any]], str],
    *,
    name: str,
) -> ClusterMap:
    """The map of Node and Pod objects; pods bound to a node hold its devices, unbound
    GPU pods wait.

    Raises:
        PlacementInputError: no Node object with GPUs.
    """
    from wlmap.placement.nodes import nodes_from_objects  # noqa: PLC0415 - loaded when used
    from wlmap.placement.plan import pod_gpus  # noqa: PLC0415
    from wlmap.workload.gpus import gpu_fraction  # noqa: PLC0415

    node_objects = [o for o in objects if o.get("kind") == "Node"]
    nodes = [n for n in nodes_from_objects(node_objects, file=name) if n.gpus > 0]
    if not nodes:
        raise PlacementInputError(
            "no Node objects with GPUs in it (expected `kubectl get nodes,pods -A -o yaml`)",
            file=name,
            row=None,
            column=None,
        )
    keys = [k for k in levels if k != HOSTNAME] or []
    mapped = [
        MapNode(
            n.name,
            n.gpu_model,
            tuple(n.labels.get(k, "(none)") for k in keys) if keys else (n.gpu_model or "-",),
            [[] for _ in range(n.gpus)],
        )
        for n in nodes
    ]
    index = {n.name: n for n in mapped}
    cluster = ClusterMap(name, tuple(keys) or (MODEL_LEVEL,), mapped)
    for pod in objects:
        if pod.get("kind") != "Pod" or (pod.get("status") or {}).get("phase") in FINISHED_PHASES:
            continue
        metadata = pod.get("metadata") or {}
        gpus, milli = pod_gpus(pod), MILLI
        if not gpus:
            try:
                share = gpu_fraction(metadata)
            except WlmapError as exc:
                cluster.warnings.append(f"{name}: pod {metadata.get('name')}: {exc}")
                continue
            if not share.devices:
                continue
            gpus, milli = share.devices, round(float(share.gpus) / share.devices * MILLI)
        workload = owner_of(pod)
        node = index.get(str((pod.get("spec") or {}).get("nodeName") or ""))
        if node is None:
            cluster.waiting.append(Waiting(workload, str(metadata.get("name")), gpus, milli))
        elif not node.take(workload, gpus, milli):
            cluster.warnings.append(
                f"{name}: pod {metadata.get('namespace')}/{metadata.get('name')} asks for "
                f"more GPUs than {node.name} had left; not drawn"
            )
    cluster.mark_fragmented()
    return cluster


def map_from_trace(nodes_csv: str, pods_csv: str, policy: str) -> ClusterMap:
    """The map of an openb node list with its pod list placed in file order by a packing
    policy (pods that fit nowhere wait).

    Raises:
        PlacementInputError: a file cannot be read or a row is malformed.
        ValueError: an unknown policy name (the message lists the known ones).
    """
    from wlmap.placement.packing import (  # noqa: PLC0415 - loads numpy
        ClusterState,
        make_policy,
        place_each,
        read_openb_nodes,
        read_openb_pods,
    )

    nodes = [n for n in read_openb_nodes(nodes_csv) if n.gpus > 0]
    pods = read_openb_pods(pods_csv)
    state = ClusterState(nodes)
    chosen = make_policy(policy)
    chosen.reset(state, pods, 0)
    mapped = [MapNode(n.name, n.gpu_model, (n.gpu_model or "-",), []) for n in nodes]
    for node, source in zip(mapped, nodes, strict=True):
        node.holders = [[] for _ in range(source.gpus)]
    cluster = ClusterMap(f"{nodes_csv} + {pods_csv}", (MODEL_LEVEL,), mapped)
    for pod, placement in place_each(state, chosen, (p for p in pods if p.num_gpu > 0)):
        if placement is None:
            cluster.waiting.append(
                Waiting(pod.name, pod.name, pod.num_gpu, pod.gpu_milli, pod.gpu_models)
            )
            continue
        for device in placement.gpus:
            mapped[placement.node].holders[device].append((pod.name, pod.gpu_milli))
    cluster.mark_fragmented()
    return cluster
