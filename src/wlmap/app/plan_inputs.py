"""What a plan reads: the clusters (dumps or live), attributed the same way.

A cluster is a list of objects: a dump's items, or the nodes and pods listed live with the
owners of those pods fetched (as ``get`` completes owners). Either way the pods are
attributed to their workload by the same rule, the top of their controller-owner chain as
far as the objects hold it, then the owner reference beyond it, so a live read and a dump
of the same objects give the same plan.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from wlmap.errors import ClusterError
from wlmap.sources.cluster import Cluster, discover, list_objects
from wlmap.sources.cluster.owners import OwnerLookup
from wlmap.sources.inventory import Inventory, controller_reference, uid_of
from wlmap.sources.manifests import Manifest

__all__ = ["Attribution", "cluster_from_context"]


class Attribution:
    """Names the workload of each pod of a cluster's objects, and tells a workload's pods."""

    def __init__(self, manifests: Sequence[Manifest]) -> None:
        self._inventory = Inventory(list(manifests))

    def chain(self, pod: Mapping[str, Any]) -> list[Mapping[str, Any]]:
        """The pod's controller owners, nearest first, as far as the objects hold them."""
        return list(self._inventory.owners(pod))

    def owner_of(self, pod: Mapping[str, Any]) -> str:
        """``Kind namespace/name`` of the workload the pod belongs to."""
        chain = self.chain(pod)
        top: Mapping[str, Any] = chain[-1] if chain else pod
        beyond = controller_reference(top)
        namespace = (pod.get("metadata") or {}).get("namespace") or "default"
        if beyond is not None:
            return f"{beyond.get('kind')} {namespace}/{beyond.get('name')}"
        return f"{top.get('kind')} {namespace}/{(top.get('metadata') or {}).get('name')}"

    def skipper(self, uids: set[str]) -> Callable[[Mapping[str, Any]], bool]:
        """Whether a pod belongs to one of the objects with these uids."""

        def skip(pod: Mapping[str, Any]) -> bool:
            owners = [pod, *self.chain(pod)]
            held = {uid_of(o) for o in owners}
            last = controller_reference(owners[-1])
            held.add(str(last.get("uid")) if last is not None else None)
            return bool(held & uids)

        return skip


def cluster_from_context(
    kubeconfig: str | None, context: str | None, warn: Callable[[str], None]
) -> list[Manifest]:
    """Nodes, pods (every namespace) and the pods' owners, read live from a context.

    Raises:
        ClusterError: the cluster cannot be reached, or nodes or pods cannot be listed.
    """

    async def read() -> list[Manifest]:
        cluster = await Cluster.connect(kubeconfig, context)
        try:
            discovery = await discover(cluster)
            nodes, pods = discovery.find("", "Node"), discovery.find("", "Pod")
            if nodes is None or pods is None:
                raise ClusterError("the cluster serves no nodes or pods")
            listed = await asyncio.gather(list_objects(cluster, nodes), list_objects(cluster, pods))
            objects = [o for part in listed for o in part]
            lookup = OwnerLookup(cluster, discovery)
            await lookup.complete(objects, listed[1])
            name = context or "current context"
            for qualified, names in sorted(lookup.refused.items()):
                warn(
                    f"{name}: cannot read {qualified} {', '.join(sorted(names)[:3])}: forbidden; "
                    "their pods are named by their nearest owner"
                )
            return [Manifest(o, f"context {name}") for o in objects]
        finally:
            await cluster.close()

    return asyncio.run(read())
