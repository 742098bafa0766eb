"""A container's state copied into the status: Degraded while the container is stuck.

Some controllers copy the core ``ContainerState`` of their main container into their own
status (the Notebook's ``.status.containerState``): an object with ``waiting``,
``running`` and ``terminated``, each of the first and last with a ``reason``. The
kubelet's waiting reasons tell a container that starts from one that cannot: it waits
with ``ContainerCreating`` or ``PodInitializing`` while starting, and with a back-off or
an error (``CrashLoopBackOff``, ``ImagePullBackOff``, ``ErrImagePull``,
``InvalidImageName``, ``CreateContainerConfigError``, ``RunContainerError``) while stuck;
it terminates with ``Completed`` when it ended well. A stuck or failed container, while
the workload has not ended and no suspension is asked, is Degraded beside whatever else
holds: its pod is restarted under its policy. Found by shape, offered as a guess.
"""

from __future__ import annotations

from wlmap.infer._failures import Failures
from wlmap.infer._schema import ITEMS, VALUES, Node, jq_path, show, walk

# The kubelet's waiting reasons for a container that cannot start, and its terminated
# reason for one that ended well.
_STUCK = "BackOff|^Err|^Invalid|Error$"
_ENDED_WELL = "Completed"


def _with_reason(node: Node | None) -> bool:
    return node is not None and node.type == "object" and "reason" in node.properties


def find_container_state(status: Node) -> Failures | None:
    """The first ContainerState under ``status`` outside lists and maps, as a Degraded test."""
    for node in walk(status):
        if len(node.path) > 4 or ITEMS in node.path or VALUES in node.path:
            continue
        waiting, terminated = node.child("waiting"), node.child("terminated")
        if not (_with_reason(waiting) and _with_reason(terminated)) or "running" not in (
            node.properties
        ):
            continue
        path = jq_path(node.path, optional=False)
        test = (
            f'(({path}.waiting.reason // "") | test("{_STUCK}"))'
            f' or ({path}.terminated != null and {path}.terminated.reason != "{_ENDED_WELL}")'
        )
        return Failures.guess(
            f"({test})",
            f"{show(node.path)} waiting on an error or back-off, or terminated",
            show(node.path),
            "a core ContainerState: a container the kubelet cannot start or that "
            "ended with an error is restarted under its pod's policy",
        )
    return None
