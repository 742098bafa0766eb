"""The DRA objects of the placement controller's integration tests: the corpus Deployment
whose 4 pods each claim 4 MIG devices of one GPU, the MIG DeviceClass, and ResourceSlices of
A100s split 3g+2g+1g+1g (one pod's claim exactly) that the tests publish per node."""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

import yaml

from tests.corpus import CORPUS
from tests.integration.kube import Kube
from wlmap.operator.placing.devices import GANG_ATTRIBUTES

WORKLOAD = CORPUS / "dra-gpu" / "quickstart-v1-gpu-test4-deployment.yaml"
RESOURCE = "resource.k8s.io/v1"
DRIVER = "gpu.nvidia.com"
CLIQUE = f"{DRIVER}/cliqueId"
PARENT = f"{DRIVER}/parentUUID"
OPT_IN = "wlmap.dev/placement"
# the DeviceClass the NVIDIA DRA driver installs for MIG devices (as in the corpus'
# extended-resources sample, without the profile)
MIG_CLASS = {
    "apiVersion": RESOURCE,
    "kind": "DeviceClass",
    "metadata": {"name": "mig.nvidia.com"},
    "spec": {
        "selectors": [
            {
                "cel": {
                    "expression": "device.driver == 'gpu.nvidia.com' && "
                    "device.attributes['gpu.nvidia.com'].type == 'mig'"
                }
            }
        ]
    },
}
# An A100 40GB split as 3g.20gb + 2g.10gb + 1g.5gb + 1g.5gb: one pod's claim exactly.
PROFILES = (("3g.20gb", 3), ("2g.10gb", 2), ("1g.5gb", 1), ("1g.5gb", 1))
# (clique, GPUs) per node, in slice order: the first clique holds 3 whole GPUs, the
# second 4, so only the second can hold the 4-pod gang.
LAYOUT = (
    ("clique-a", 2),
    ("clique-a", 1),
    ("clique-b", 1),
    ("clique-b", 1),
    ("clique-b", 1),
    ("clique-b", 1),
)


def mig_slice(node: str, clique: str, gpus: int, test: str) -> dict[str, Any]:
    """The node's slice; its pool is the test's own, so that claims an earlier test left
    allocated (their namespace still being deleted) do not hold these devices."""
    devices = []
    for gpu in range(gpus):
        parent = f"GPU-{node}-{gpu}"
        for index, (profile, slices) in enumerate(PROFILES):
            devices.append(
                {
                    "name": f"gpu-{gpu}-mig-{index}",
                    "attributes": {
                        "type": {"string": "mig"},
                        "uuid": {"string": f"MIG-{node}-{gpu}-{index}"},
                        "parentUUID": {"string": parent},
                        "profile": {"string": profile},
                        "productName": {"string": "NVIDIA A100-SXM4-40GB"},
                        "cliqueId": {"string": clique},
                    },
                    "capacity": {"multiprocessors": {"value": str(14 * slices)}},
                }
            )
    return {
        "apiVersion": RESOURCE,
        "kind": "ResourceSlice",
        "metadata": {"name": f"{test}-{node}"},
        "spec": {
            "driver": DRIVER,
            "nodeName": node,
            "pool": {"name": f"{test}-{node}", "generation": 1, "resourceSliceCount": 1},
            "devices": devices,
        },
    }


def corpus_objects(namespace: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The corpus' ResourceClaimTemplate and Deployment, in the test's namespace, the
    Deployment asking for its devices to share one clique."""
    documents = [d for d in yaml.safe_load_all(WORKLOAD.read_text()) if d]
    template = next(d for d in documents if d["kind"] == "ResourceClaimTemplate")
    deployment = copy.deepcopy(next(d for d in documents if d["kind"] == "Deployment"))
    for obj in (template, deployment):
        obj["metadata"]["namespace"] = namespace
    deployment["metadata"]["annotations"] = {GANG_ATTRIBUTES: CLIQUE}
    return template, deployment


def pod_claims(kube: Kube, namespace: str, pod: dict[str, Any]) -> list[dict[str, Any]]:
    """The claims the pod's status names, those that exist."""
    names = [s["resourceClaimName"] for s in pod["status"].get("resourceClaimStatuses") or ()]
    found = [kube.get(RESOURCE, "ResourceClaim", namespace, n) for n in names]
    return [c for c in found if c is not None]


def publish(
    kube: Kube, nodes: Sequence[str], layout: Sequence[tuple[str, int]], test: str
) -> list[dict[str, Any]]:
    """The MIG class (once) and one slice per node of ``layout``; the slices made."""
    if kube.get(RESOURCE, "DeviceClass", None, "mig.nvidia.com") is None:
        kube.create(MIG_CLASS)
    return [
        kube.create(mig_slice(node, clique, gpus, test))
        for node, (clique, gpus) in zip(nodes, layout, strict=True)
    ]
