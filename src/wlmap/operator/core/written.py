"""What the operator wrote and has not seen back yet, so that it does not write it again.

A reconciliation reads pods from the watch cache and gang objects from a listing, and
both can lag the operator's own last write: a pod patched with its group link still looks
unlinked until the watch delivers the patched copy, and every event of the workload meanwhile
would patch it again. The same holds for gang objects, applied on every reconciliation
although nothing in them changed. Here each write is remembered:

- a pod's group link until a copy of the pod shows it (or the pod is gone), and at most
  ``LINK_MEMORY_SECONDS``: a link removed by someone else before the watch ever showed it
  is written again after that;
- a gated pod's link, kept for the patch that releases the pod (its link matters only
  to its scheduler, which does not see it before), so that the pod is patched once;
- a gang object's applied body with the ``resourceVersion`` the server answered; applying
  the same body again is skipped while the object listed is still that version (anything
  else that changed it, even in a field the apply does not own, makes it apply again);
- which workload each applied gang object belongs to, so that one applied and not in the
  gang cache yet is still found when its workload no longer wants it.

This is the pattern of the capacity cache's assumed pods (decision 0032): the writer keeps
what it wrote until the watch shows it.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping
from typing import Any

from wlmap.operator.core.settings import WORKLOAD_UID_LABEL
from wlmap.schedulers import PodLink
from wlmap.sources.inventory import uid_of

__all__ = ["LINK_MEMORY_SECONDS", "Written"]

LINK_MEMORY_SECONDS = 60.0


class Written:
    """Pod links and gang objects written, until the cluster's copies show them.

    Args:
        clock: monotonic seconds (tests pass their own).
    """

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._links: dict[str, tuple[str, float]] = {}  # pod uid -> (group, when written)
        self._applied: dict[str, tuple[str, str]] = {}  # path -> (body, resourceVersion)
        self._deferred: dict[str, tuple[PodLink, str]] = {}  # pod uid -> (link, group)
        self._owners: dict[str, str] = {}  # gang object path -> its workload's uid
        self._objects: dict[str, dict[str, dict[str, Any]]] = {}  # uid -> path -> stub

    def needs_link(self, pod: Mapping[str, Any], link: PodLink, group: str) -> bool:
        """Whether ``pod`` must be patched to carry ``group``: it does not show it, and the
        operator has not written it (recently) either."""
        uid = str(uid_of(pod))
        shown = link.shown(pod)
        if shown == group:
            self._links.pop(uid, None)  # the copy caught up: nothing to remember
            return False
        remembered = self._links.get(uid)
        if remembered is None or remembered[0] != group:
            return True
        if self._clock() - remembered[1] > LINK_MEMORY_SECONDS:
            del self._links[uid]
            return True
        return False

    def linked(self, pod: Mapping[str, Any], group: str) -> None:
        """Remember that ``pod`` was patched to carry ``group``."""
        uid = str(uid_of(pod))
        self._links[uid] = (group, self._clock())
        self._deferred.pop(uid, None)

    def defer(self, pod: Mapping[str, Any], link: PodLink, group: str) -> None:
        """Keep a gated pod's link for the patch that releases it (one write, not two:
        nothing schedules the pod before that)."""
        self._deferred[str(uid_of(pod))] = (link, group)

    def deferred(self, pod: Mapping[str, Any]) -> tuple[PodLink, str] | None:
        """The (link, group) kept for ``pod``'s release, if any."""
        return self._deferred.get(str(uid_of(pod)))

    def link_pending(self, pod: Mapping[str, Any]) -> bool:
        """Whether a link was written to ``pod`` (recently) that its copy does not show
        yet."""
        remembered = self._links.get(str(uid_of(pod)))
        return remembered is not None and self._clock() - remembered[1] <= LINK_MEMORY_SECONDS

    def gone(self, pod: Mapping[str, Any]) -> None:
        """Forget a deleted pod."""
        self._links.pop(str(uid_of(pod)), None)
        self._deferred.pop(str(uid_of(pod)), None)

    def needs_apply(self, path: str, body: str, current: Mapping[str, Any] | None) -> bool:
        """Whether the gang object at ``path`` must be applied with ``body``: it is not
        listed, or not as this body left it."""
        remembered = self._applied.get(path)
        if remembered is None or current is None:
            return True
        version = (current.get("metadata") or {}).get("resourceVersion")
        return remembered != (body, str(version))

    def applied(self, path: str, body: str, answer: Mapping[str, Any] | None) -> None:
        """Remember the body applied at ``path`` and the version the server answered."""
        meta = (answer or {}).get("metadata") or {}
        version = meta.get("resourceVersion")
        if version is None or answer is None:
            self.deleted(path)
            return
        self._applied[path] = (body, str(version))
        uid = (meta.get("labels") or {}).get(WORKLOAD_UID_LABEL)
        if uid is not None and self._owners.get(path) != uid:
            self._forget_owner(path)
            self._owners[path] = str(uid)
            self._objects.setdefault(str(uid), {})[path] = {
                "apiVersion": answer.get("apiVersion"),
                "kind": answer.get("kind"),
                "metadata": {"name": meta.get("name"), "namespace": meta.get("namespace")},
            }

    def deleted(self, path: str) -> None:
        """Forget a gang object deleted."""
        self._applied.pop(path, None)
        self._forget_owner(path)

    def applied_objects(self, uid: str) -> list[dict[str, Any]]:
        """The gang objects applied for the workload with this uid and not deleted since
        (apiVersion, kind, name and namespace only)."""
        return list(self._objects.get(uid, {}).values())

    def _forget_owner(self, path: str) -> None:
        uid = self._owners.pop(path, None)
        if uid is None:
            return
        paths = self._objects.get(uid)
        if paths is not None:
            paths.pop(path, None)
            if not paths:
                del self._objects[uid]

    @property
    def pending(self) -> int:
        """Links, deferred links and applied objects remembered."""
        return len(self._links) + len(self._deferred) + len(self._applied)


def body_of(item: Mapping[str, Any]) -> str:
    """The text an apply sends (keys in order: equal objects give equal bodies)."""
    return json.dumps(item, sort_keys=True)
