"""What one request may see: the pages' documents cut to the workloads its user may list.

Without a guard everything is shown (a page on a workstation, read with the reader's own
kubeconfig). With one, a workload is kept when its user may list its kind in its
namespace, and its pods when pods may be listed there too; the Cluster page needs nodes
and pods listable cluster-wide; anything that
does not say its kind and namespace is left out rather than shown.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from wlmap.web.access import Guard, User
from wlmap.web.documents import counts

__all__ = ["Visible"]


@dataclass(frozen=True)
class Visible:
    """The guard and the user a request was made by (both None: no access checks)."""

    guard: Guard | None
    user: User | None

    def may_see(self, document: Mapping[str, Any]) -> bool:
        """Whether a row or a Workload page (apiVersion, kind, namespace) may be shown."""
        if self.guard is None:
            return True
        if self.user is None or "apiVersion" not in document or "kind" not in document:
            return False
        group = str(document["apiVersion"]).rpartition("/")[0]
        namespace = document.get("namespace")
        return self.guard.may_list(self.user, group, str(document["kind"]), namespace)

    def workload(self, document: dict[str, Any]) -> dict[str, Any] | None:
        """A Workload page as this request may see it: None when its kind may not be
        listed there (as if it did not exist), without its pods when pods may not be."""
        if not self.may_see(document):
            return None
        if self.guard is None or self.user is None:
            return document
        if self.guard.may_list(self.user, "", "Pod", document.get("namespace")):
            return document
        return {**document, "pods": None, "unclaimedPods": []}

    def page(self, path: str, document: dict[str, Any]) -> dict[str, Any]:
        """A page's document as this request may see it."""
        if self.guard is None or self.user is None:
            return document
        if path == "/api/workloads":
            rows = [r for r in document["items"] if self.may_see(r)]
            return {**document, "items": rows, "count": len(rows), "states": counts(rows)}
        if path == "/api/waiting":
            items = [i for i in document["items"] if self.may_see(i)]
            pods = document["pods"] if self._whole_cluster() else []
            return {**document, "items": items, "pods": pods}
        if path == "/api/cluster" and not self._whole_cluster():
            return {
                "domains": [],
                "levels": [],
                "waiting": [],
                "problems": ["the Cluster page needs the right to list nodes and pods"],
            }
        return document

    def _whole_cluster(self) -> bool:
        assert self.guard is not None and self.user is not None, "checked by page()"
        return self.guard.may_list(self.user, "", "Node", None) and self.guard.may_list(
            self.user, "", "Pod", None
        )
