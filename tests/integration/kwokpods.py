"""Pods on the KWOK cluster: a GPU pod template held to a topology domain by a node
selector, and where the pods a controller made ended up."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests.integration.fakenodes import GPU, KwokCluster
from tests.integration.kube import Kube


def pod_template(
    selector: dict[str, str], gpus: int, labels: dict[str, str], restart: str = "Always"
) -> dict[str, Any]:
    return {
        "metadata": {"labels": labels},
        "spec": {
            "restartPolicy": restart,
            "nodeSelector": selector,
            "containers": [
                {
                    "name": "train",
                    "image": "registry.test/train:1",
                    "resources": {"limits": {GPU: str(gpus)}},
                }
            ],
        },
    }


def owned_pods(kube: Kube, namespace: str, owner: dict[str, Any]) -> list[dict[str, Any]]:
    uid = owner["metadata"]["uid"]
    return [
        pod
        for pod in kube.list("v1", "Pod", namespace)
        if any(ref.get("uid") == uid for ref in pod["metadata"].get("ownerReferences") or ())
    ]


def running(
    kube: Kube, namespace: str, owner: dict[str, Any], count: int
) -> Callable[[], list[dict[str, Any]]]:
    """A check: the owner's pods once there are ``count`` of them, all Running."""

    def check() -> list[dict[str, Any]]:
        pods = owned_pods(kube, namespace, owner)
        phases = [pod.get("status", {}).get("phase") for pod in pods]
        return pods if len(pods) == count and phases == ["Running"] * count else []

    return check


def placement(kwok: KwokCluster, pods: list[dict[str, Any]]) -> dict[str, dict[str, str]]:
    """Each pod's node's labels, by pod name."""
    nodes = kwok.nodes()
    return {
        pod["metadata"]["name"]: nodes[pod["spec"]["nodeName"]]["metadata"]["labels"]
        for pod in pods
    }


__all__ = ["owned_pods", "placement", "pod_template", "running"]
