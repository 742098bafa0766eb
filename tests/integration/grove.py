"""Grove on the test server: CRDs for the PodCliqueSet's children, and children created as
the PodCliqueSet's controller would, with their conditions on their own clock."""

from __future__ import annotations

import copy
from datetime import datetime
from pathlib import Path
from typing import Any

import yaml

from tests.integration.kube import Kube

CASE = (
    Path(__file__).resolve().parents[1]
    / "catalog/cases/grove-io-podcliqueset-v1alpha1/degraded-podclique-below-min-available.yaml"
)


def child_crd(kind: str, plural: str) -> dict[str, Any]:
    """A CRD for a Grove child kind that keeps every field (the test writes what Grove writes)."""
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": f"{plural}.grove.io"},
        "spec": {
            "group": "grove.io",
            "scope": "Namespaced",
            "names": {"kind": kind, "plural": plural, "listKind": f"{kind}List"},
            "versions": [
                {
                    "name": "v1alpha1",
                    "served": True,
                    "storage": True,
                    "subresources": {"status": {}},
                    "schema": {
                        "openAPIV3Schema": {
                            "type": "object",
                            "x-kubernetes-preserve-unknown-fields": True,
                        }
                    },
                }
            ],
        },
    }


def install(kube: Kube, folder: Path) -> tuple[str, ...]:
    """Install the PodCliqueSet CRD (from the corpus) and its children's (written to
    ``folder``); the names to remove them by."""
    files = []
    for kind, plural in (
        ("PodClique", "podcliques"),
        ("PodCliqueScalingGroup", "podcliquescalinggroups"),
    ):
        path = folder / f"{plural}.yaml"
        path.write_text(yaml.safe_dump(child_crd(kind, plural)))
        files.append(path)
    return kube.install_crds(["grove.io_podcliquesets.yaml", *files])


def create_child(
    kube: Kube, namespace: str, child: dict[str, Any], owner: dict[str, Any]
) -> dict[str, Any]:
    """``child`` created as owned by ``owner``, its condition times moved to its own clock."""
    body = copy.deepcopy(child)
    metadata = body["metadata"]
    for key in (
        "uid",
        "creationTimestamp",
        "namespace",
        "finalizers",
    ):  # no controller to clear finalizers
        metadata.pop(key, None)
    metadata["ownerReferences"][0].update(
        name=owner["metadata"]["name"], uid=owner["metadata"]["uid"]
    )
    status = body.pop("status")
    created = kube.create(body, namespace)
    born = datetime.fromisoformat(created["metadata"]["creationTimestamp"])
    for condition in status.get("conditions", ()):
        # keep each transition as far after creation as the case has it
        offset = datetime.fromisoformat(condition["lastTransitionTime"]) - datetime.fromisoformat(
            child["metadata"]["creationTimestamp"]
        )
        condition["lastTransitionTime"] = (born + offset).strftime("%Y-%m-%dT%H:%M:%SZ")
    return kube.set_status(created, status)
