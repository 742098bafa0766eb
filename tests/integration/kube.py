"""A small synchronous API client for setting up test state the way operators would:
objects created, status written through the status subresource, CRDs installed.

It is deliberately independent of wlmap's own cluster code, which the tests exercise.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping
from functools import partial
from pathlib import Path
from typing import Any

import httpx
import yaml

from tests.corpus import LOADER, corpus_docs, corpus_path

CRD_API = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"


class Kube:
    """Create, read, patch and delete objects of any served type."""

    def __init__(self, client: httpx.Client) -> None:
        self.http = client
        self._plurals: dict[tuple[str, str], tuple[str, bool]] = {}

    def path(
        self, api_version: str, kind: str, namespace: str | None, name: str | None = None
    ) -> str:
        plural, namespaced = self._resource(api_version, kind)
        root = f"/apis/{api_version}" if "/" in api_version else f"/api/{api_version}"
        scope = f"/namespaces/{namespace}" if namespaced and namespace else ""
        return f"{root}{scope}/{plural}" + (f"/{name}" if name else "")

    def create(self, obj: Mapping[str, Any], namespace: str | None = None) -> dict[str, Any]:
        metadata = dict(obj.get("metadata") or {})
        namespace = namespace or metadata.get("namespace")
        if namespace and self._resource(obj["apiVersion"], obj["kind"])[1]:
            metadata["namespace"] = namespace
        body = {**obj, "metadata": metadata}
        status = body.pop("status", None)
        answer = self._ok(
            self._send("POST", self.path(obj["apiVersion"], obj["kind"], namespace), json=body)
        )
        if status is not None:
            answer = self.set_status(answer, status)
        return answer

    def set_status(self, obj: Mapping[str, Any], status: Mapping[str, Any]) -> dict[str, Any]:
        """Write status through the status subresource, as a controller does."""
        meta = obj["metadata"]
        path = self.path(obj["apiVersion"], obj["kind"], meta.get("namespace"), meta["name"])
        return self._ok(
            self._send(
                "PATCH",
                f"{path}/status",
                json={"status": status},
                headers={"Content-Type": "application/merge-patch+json"},
            )
        )

    def patch(self, obj: Mapping[str, Any], patch: Mapping[str, Any]) -> dict[str, Any]:
        meta = obj["metadata"]
        return self._ok(
            self._send(
                "PATCH",
                self.path(obj["apiVersion"], obj["kind"], meta.get("namespace"), meta["name"]),
                json=patch,
                headers={"Content-Type": "application/merge-patch+json"},
            )
        )

    def get(
        self, api_version: str, kind: str, namespace: str | None, name: str
    ) -> dict[str, Any] | None:
        answer = self._send("GET", self.path(api_version, kind, namespace, name))
        return None if answer.status_code == 404 else self._ok(answer)

    def list(
        self, api_version: str, kind: str, namespace: str | None = None
    ) -> list[dict[str, Any]]:
        items = self._ok(self._send("GET", self.path(api_version, kind, namespace))).get(
            "items", []
        )
        return list(items)

    def delete(self, obj: Mapping[str, Any]) -> None:
        meta = obj["metadata"]
        answer = self._send(
            "DELETE",
            self.path(obj["apiVersion"], obj["kind"], meta.get("namespace"), meta["name"]),
            # as kubectl does; batch/v1 Jobs would otherwise wait for a garbage collector
            json={"propagationPolicy": "Background"},
        )
        if answer.status_code != 404:
            self._ok(answer)

    def namespace(self, name: str) -> str:
        answer = self._send("POST", "/api/v1/namespaces", json={"metadata": {"name": name}})
        if answer.status_code != 409:
            self._ok(answer)
        return name

    def install_crds(self, files: Iterable[str | Path]) -> tuple[str, ...]:
        """Install CRDs (a name: from the corpus, skipping the test when it is absent; a
        path: that file), wait until each is established and its objects can be listed,
        and return their names.

        Established comes before the storage of a new CRD is ready: for a moment a LIST
        is answered 429. A controller started in that moment retries its watch, and what
        happens before the retry is never seen by it, which a test would then read as
        the controller's fault."""
        paths = [file if isinstance(file, Path) else corpus_path(f"crds/{file}") for file in files]
        crds = [yaml.load(path.read_text(encoding="utf-8"), Loader=LOADER) for path in paths]
        names = tuple(crd["metadata"]["name"] for crd in crds)
        for crd in crds:
            answer = self._send("POST", CRD_API, json=crd)
            if answer.status_code != 409:
                self._ok(answer)
        for name in names:
            wait_for(partial(self.crd_established, name), f"CRD {name} established")
        for crd in crds:
            wait_for(partial(self.crd_listable, crd), f"CRD {crd['metadata']['name']} listable")
        self._plurals.clear()
        return names

    def remove_crds(self, names: tuple[str, ...]) -> None:
        """Delete CRDs (and so every object of theirs) and wait until they are gone."""
        for name in names:
            self._send("DELETE", f"{CRD_API}/{name}")
        for name in names:
            wait_for(partial(self.crd_gone, name), f"CRD {name} removed")
        self._plurals.clear()

    def crd_established(self, name: str) -> bool:
        return _established(self._ok(self._send("GET", f"{CRD_API}/{name}")))

    def crd_listable(self, crd: Mapping[str, Any]) -> bool:
        """Whether every served version of the CRD answers a LIST (not 429)."""
        spec = crd["spec"]
        for version in spec["versions"]:
            if version.get("served", True):
                url = f"/apis/{spec['group']}/{version['name']}/{spec['names']['plural']}"
                if self.http.get(url, params={"limit": 1}).status_code == 429:
                    return False
        return True

    def crd_gone(self, name: str) -> bool:
        return self._send("GET", f"{CRD_API}/{name}").status_code == 404

    def _resource(self, api_version: str, kind: str) -> tuple[str, bool]:
        key = (api_version, kind)
        if key not in self._plurals:
            root = f"/apis/{api_version}" if "/" in api_version else f"/api/{api_version}"
            for resource in self._ok(self._send("GET", root)).get("resources", []):
                if "/" not in resource["name"]:
                    self._plurals[(api_version, resource["kind"])] = (
                        resource["name"],
                        resource["namespaced"],
                    )
        return self._plurals[key]

    def _send(self, method: str, url: str, **kwargs: Any) -> httpx.Response:
        """One request, repeated while the server answers 429 (storage still initialising
        after a CRD change)."""
        for _ in range(30):
            answer = self.http.request(method, url, **kwargs)
            if answer.status_code != 429:
                return answer
            time.sleep(0.5)
        return answer

    @staticmethod
    def _ok(answer: httpx.Response) -> dict[str, Any]:
        if answer.is_error:
            raise AssertionError(
                f"{answer.request.method} {answer.request.url}: {answer.status_code} {answer.text[:500]}"
            )
        body: dict[str, Any] = answer.json()
        return body


def _established(crd: Mapping[str, Any]) -> bool:
    return any(
        c.get("type") == "Established" and c.get("status") == "True"
        for c in (crd.get("status") or {}).get("conditions") or ()
    )


_OWNERS = (
    ("batch/v1", "Job"),
    ("apps/v1", "StatefulSet"),
    ("apps/v1", "Deployment"),
    ("apps/v1", "ReplicaSet"),
)


def empty_namespace(kube: Kube, namespace: str) -> None:
    """Delete the namespace's workloads, then its pods at once, and wait until none is
    left holding a node."""
    for api_version, kind in _OWNERS:
        for obj in kube.list(api_version, kind, namespace):
            kube.delete({"apiVersion": api_version, "kind": kind, **obj})
    now = {"gracePeriodSeconds": 0, "propagationPolicy": "Background"}
    for pod in kube.list("v1", "Pod", namespace):
        kube._send("DELETE", kube.path("v1", "Pod", namespace, pod["metadata"]["name"]), json=now)
    wait_for(lambda: not kube.list("v1", "Pod", namespace), f"the pods of {namespace} gone")


def wait_for(
    check: Callable[[], Any], what: str, timeout: float = 60.0, interval: float = 0.2
) -> Any:
    """Poll until ``check`` returns something truthy; that value."""
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")
        time.sleep(interval)


def load(relative: str) -> list[dict[str, Any]]:
    """The objects of a corpus manifest; skips the test when the corpus is absent."""
    return corpus_docs(relative)


__all__ = ["CRD_API", "Kube", "load", "wait_for"]
