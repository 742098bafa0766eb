"""The nodes every placement engine places on, and reading them from files.

- :mod:`.node`: a node's capacity, GPU model, labels and taints;
- :mod:`.kube_nodes`: nodes from a Kubernetes node list (``kubectl get nodes -o yaml``);
- :mod:`.csv_files`: the CSV reading the trace and job-mix readers share.

The packing, gangs and devices engines stand on this package and never on each other.
"""

from __future__ import annotations

from wlmap.placement.nodes.csv_files import csv_rows
from wlmap.placement.nodes.kube_nodes import (
    GPU_RESOURCE,
    PRODUCT_LABEL,
    UNKNOWN_MODEL,
    nodes_from_objects,
    read_kube_nodes,
)
from wlmap.placement.nodes.node import Node

__all__ = [
    "GPU_RESOURCE",
    "PRODUCT_LABEL",
    "UNKNOWN_MODEL",
    "Node",
    "csv_rows",
    "nodes_from_objects",
    "read_kube_nodes",
]
