"""Pods as the workload controllers create them: the template plus the labels they stamp."""

from __future__ import annotations

import copy
from typing import Any


def make_pod(
    name: str,
    template: dict[str, Any],
    labels: dict[str, str],
    *,
    ready: bool = True,
    phase: str = "Running",
    node: str | None = "node-a",
) -> dict[str, Any]:
    """A pod built from a workload's pod template, as its controller would create it."""
    metadata = copy.deepcopy(template.get("metadata") or {})
    metadata["name"] = name
    metadata["labels"] = {**(metadata.get("labels") or {}), **labels}
    spec = copy.deepcopy(template.get("spec") or {})
    if node:
        spec["nodeName"] = node
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": metadata,
        "spec": spec,
        "status": {
            "phase": phase,
            "conditions": [{"type": "Ready", "status": "True" if ready else "False"}],
        },
    }
