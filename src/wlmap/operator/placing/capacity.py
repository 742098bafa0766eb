"""The cluster's GPU capacity as the placement controller plans on it, kept by watches.

Nodes and pods of the whole cluster are listed once and then watched (one informer each,
apart from the operator's namespace-scoped cache: GPUs held in namespaces the operator
does not serve count too), and every change is folded into what a plan reads:

- the topology, built from the nodes by :func:`wlmap.placement.plan.read_occupancy` again
  only when a node comes or goes or its level labels, GPUs or cordon change (heartbeats
  and status updates do not rebuild it);
- the GPUs held per node and per (workload, node): a pod bound to a node and not finished
  holds its effective ``nvidia.com/gpu`` request there, as in a dump;
- the pods a plan placed that kube-scheduler has not bound yet, each holding its GPUs on
  the node its plan chose ("assumed", as kube-scheduler assumes a pod before its binding
  is written) until the watch shows it bound, finished or gone. Without them, gangs
  planned in a burst would all see the same empty rack.

Of each pod only what the counts read is kept (:func:`slim_pod`: its name, owner, node,
phase and GPUs): every pod of the cluster is held, and a whole pod is some kilobytes.

A plan therefore costs no request: :meth:`CapacityCache.occupancy` composes a fresh
:class:`~wlmap.placement.plan.Occupancy` from memory. Plans are serialised by
:attr:`CapacityCache.planning`, so the read, the plan and the assumption of its pods
happen with no other plan between them.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from wlmap.operator.placing.node_faults import fault_of, without_faulty
from wlmap.sources.cluster import Cluster
from wlmap.sources.cluster.discovery import ApiResource
from wlmap.sources.cluster.informer import Informer, Informers
from wlmap.sources.cluster.object_index import ObjectIndex
from wlmap.sources.inventory import uid_of

if TYPE_CHECKING:  # numpy and the policies load with the first plan
    from wlmap.placement.gangs import GangPlacement
    from wlmap.placement.plan import Occupancy

__all__ = ["CapacityCache", "slim_pod", "workload_of"]

GPU = "nvidia.com/gpu"
FINISHED = frozenset({"Succeeded", "Failed"})
SYNC_SECONDS = 60.0


class _Held(NamedTuple):
    node: str
    gpus: int
    workload: str


class CapacityCache:
    """Nodes and pods of the cluster, watched, as the GPU occupancy a plan starts from.

    Args:
        cluster: the connection.
        nodes: the Node resource; pods: the Pod resource (None: nothing is watched, and
            events are fed with :meth:`observe`).
        levels: the topology's level label keys, coarsest first.
    """

    def __init__(
        self,
        cluster: Cluster,
        nodes: ApiResource | None,
        pods: ApiResource | None,
        levels: Sequence[str],
    ) -> None:
        self.levels = tuple(levels)
        self.planning = asyncio.Lock()  # one plan at a time: read, plan, assume
        self._index = ObjectIndex()
        self._informers = Informers(
            [
                Informer(
                    cluster,
                    resource,
                    None,
                    self._index,
                    self._changed,
                    project=slim_pod if resource is pods else None,
                )
                for resource in (nodes, pods)
                if resource is not None
            ]
        )
        self._node_keys: dict[str, tuple[object, ...]] = {}
        self._node_version = 0
        self._built: tuple[int, Occupancy] | None = None
        self._bound: dict[str, _Held] = {}  # pod uid: where it holds GPUs
        self._assumed: dict[str, _Held] = {}  # pod uid: where its plan put it
        self._used: Counter[str] = Counter()  # node: GPUs held there, bound and assumed

    def start(self) -> None:
        """Start listing and watching (in the running event loop)."""
        self._informers.start()

    async def stop(self) -> None:
        """Stop every watch."""
        await self._informers.stop()

    async def synced(self, timeout: float = SYNC_SECONDS) -> None:
        """Wait until nodes and pods have been listed once.

        Raises:
            ClusterError: not within ``timeout`` seconds.
        """
        await self._informers.synced(timeout, "nodes and pods")

    def observe(self, event_type: str, obj: dict[str, Any]) -> None:
        """A change of a node or a pod fed by hand (as a watch would bring it)."""
        if event_type == "DELETED":
            self._index.remove(obj)
        else:
            self._index.put(obj)
        self._changed(event_type, obj)

    def _changed(self, event_type: str, obj: dict[str, Any]) -> None:
        """A change the index holds already: folded into the counts."""
        if obj.get("kind") == "Node":
            self._node_changed(event_type, obj)
        elif obj.get("kind") == "Pod":
            self._pod_changed(event_type, obj)

    async def occupancy(self) -> Occupancy:
        """The cluster now: its topology and the GPUs bound and assumed pods hold.

        Raises:
            PlacementInputError: no node, no GPU node, or a level no GPU node has.
            ClusterError: nodes and pods are not listed yet, within ``SYNC_SECONDS``.
        """
        from wlmap.placement.gangs import FreeCapacity  # noqa: PLC0415 - start-up cost
        from wlmap.placement.plan import HeldGpus, Occupancy, read_occupancy  # noqa: PLC0415

        await self.synced()
        if self._built is None or self._built[0] != self._node_version:
            version = self._node_version
            # a faulty node is left out of plans as a cordoned one is
            nodes = without_faulty(
                [{"apiVersion": "v1", **n} for n in self._index.of_type("", "Node", None)]
            )
            built = await asyncio.to_thread(
                read_occupancy, nodes, self.levels, workload_of, name="cluster"
            )
            self._built = (version, built)
        base = self._built[1]
        topology = base.topology
        capacity = FreeCapacity(topology)
        found = Occupancy(base.name, topology, capacity, warnings=list(base.warnings))
        index = {n.name: i for i, n in enumerate(topology.nodes)}
        for name, gpus in self._used.items():
            node = index.get(name)
            if node is not None and gpus > 0:
                capacity.take(node, min(gpus, int(capacity.node_free[node])))
        held: Counter[tuple[str, int]] = Counter()
        pods: Counter[tuple[str, int]] = Counter()
        for entry in (*self._bound.values(), *self._assumed.values()):
            node = index.get(entry.node)
            if node is not None:
                held[entry.workload, node] += entry.gpus
                pods[entry.workload, node] += 1
        found.held = [HeldGpus(w, n, gpus, pods[w, n]) for (w, n), gpus in held.items()]
        return found

    def assume(
        self,
        pods: Sequence[Mapping[str, Any]],
        placement: GangPlacement,
        occupancy: Occupancy,
        gpus: int,
    ) -> dict[str, str]:
        """Count a placed gang's pods on the nodes its plan chose (``gpus`` each) until
        their bindings are seen; pods already bound are left as they are. Each pod's
        node, by pod name."""
        nodes = [
            occupancy.topology.nodes[node].name
            for node, count in placement.nodes
            for _ in range(count)
        ]
        waiting = [p for p in pods if str(uid_of(p)) not in self._bound]
        chosen = {}
        for pod, node in zip(waiting, nodes, strict=False):
            uid = str(uid_of(pod))
            self._drop(uid)
            self._assumed[uid] = _Held(node, gpus, workload_of(pod))
            self._used[node] += gpus
            chosen[str((pod.get("metadata") or {}).get("name"))] = node
        return chosen

    def released(self, pod: Mapping[str, Any]) -> bool:
        """Whether a plan placed this pod and its binding has not been seen yet (it was
        released, or is being released: a gate still on it is a stale copy)."""
        return str(uid_of(pod)) in self._assumed

    def forget(self, pods: Sequence[Mapping[str, Any]]) -> None:
        """Drop the assumptions of pods whose release failed: they are planned again."""
        for pod in pods:
            uid = str(uid_of(pod))
            if uid in self._assumed:
                self._drop(uid)

    @property
    def assumed(self) -> int:
        """Pods placed by a plan and not yet seen bound."""
        return len(self._assumed)

    def _node_changed(self, event_type: str, node: Mapping[str, Any]) -> None:
        name = str((node.get("metadata") or {}).get("name"))
        key = None if event_type == "DELETED" else self._node_key(node)
        if self._node_keys.get(name) != key:
            if key is None:
                self._node_keys.pop(name, None)
            else:
                self._node_keys[name] = key
            self._node_version += 1

    def _node_key(self, node: Mapping[str, Any]) -> tuple[object, ...]:
        """What of a node the topology depends on (a fault takes it out of plans)."""

        labels = (node.get("metadata") or {}).get("labels") or {}
        status = node.get("status") or {}
        gpus = ((status.get("allocatable") or status.get("capacity")) or {}).get(GPU)
        unschedulable = bool((node.get("spec") or {}).get("unschedulable"))
        faulty = fault_of(node) is not None
        return (*(labels.get(k) for k in self.levels), gpus, unschedulable, faulty)

    def _pod_changed(self, event_type: str, pod: Mapping[str, Any]) -> None:
        uid = uid_of(pod)
        if uid is None:
            return
        uid = str(uid)
        node = (pod.get("spec") or {}).get("nodeName")
        finished = (pod.get("status") or {}).get("phase") in FINISHED
        if event_type == "DELETED" or finished:
            self._drop(uid)
            return
        if not node:
            return  # pending, or released and assumed: nothing changes until it binds
        before = self._bound.get(uid)
        if before is not None and before.node == node:
            return  # a status update of a pod already counted
        from wlmap.placement.plan import pod_gpus  # noqa: PLC0415 - start-up cost

        self._drop(uid)
        gpus = pod_gpus(pod)
        if gpus:
            self._bound[uid] = _Held(str(node), gpus, workload_of(pod))
            self._used[str(node)] += gpus

    def _drop(self, uid: str) -> None:
        for table in (self._bound, self._assumed):
            entry = table.pop(uid, None)
            if entry is not None:
                self._used[entry.node] -= entry.gpus
                if self._used[entry.node] <= 0:
                    del self._used[entry.node]


def slim_pod(pod: dict[str, Any]) -> dict[str, Any]:
    """What the counts read of a pod: its identity and controller (``workload_of``), node,
    phase, and its GPUs as one container's request (``pod_gpus`` reads it back)."""
    from wlmap.placement.plan import pod_gpus  # noqa: PLC0415 - start-up cost

    meta = pod.get("metadata") or {}
    spec = pod.get("spec") or {}
    kept_meta = {k: meta[k] for k in ("name", "namespace", "uid", "resourceVersion") if k in meta}
    owners = [r for r in meta.get("ownerReferences") or () if r.get("controller")]
    if owners:
        kept_meta["ownerReferences"] = owners
    kept_spec: dict[str, Any] = {k: spec[k] for k in ("nodeName",) if k in spec}
    gpus = pod_gpus(pod)
    if gpus:
        kept_spec["containers"] = [{"name": "gpus", "resources": {"requests": {GPU: str(gpus)}}}]
    phase = (pod.get("status") or {}).get("phase")
    return {
        "apiVersion": pod.get("apiVersion", "v1"),
        "kind": pod.get("kind", "Pod"),
        "metadata": kept_meta,
        "spec": kept_spec,
        "status": {"phase": phase} if phase else {},
    }


def workload_of(pod: Mapping[str, Any]) -> str:
    """A pod's workload as ``Kind namespace/name``: its controller, or itself."""
    meta = pod.get("metadata") or {}
    owner = next((r for r in meta.get("ownerReferences") or () if r.get("controller")), None)
    name = owner.get("name") if owner else meta.get("name")
    kind = owner.get("kind") if owner else "Pod"
    return f"{kind} {meta.get('namespace')}/{name}"
