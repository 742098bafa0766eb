"""Nodes from a Kubernetes node list: what ``kubectl get nodes -o yaml`` (or ``-o json``) prints.

A file may hold a ``List`` (or ``NodeList``) of nodes, a single Node, or several YAML
documents of either. Each node's allocatable CPU, memory and ``nvidia.com/gpu`` become its
capacity (``status.capacity`` is read only when ``status.allocatable`` is absent, as in
hand-written lists); CPU is rounded down to a whole millicore and memory to a whole MiB, so
a node is never made larger than it is. The GPU model is the ``nvidia.com/gpu.product``
label that NVIDIA GPU feature discovery sets (``NVIDIA-A100-SXM4-80GB``); a GPU node
without it gets the model :data:`UNKNOWN_MODEL`. Labels and taints are kept as they are.
The node dump published with the openb trace is read too: it counts GPUs as
``alibabacloud.com/gpu-count`` and names the model in ``alibabacloud.com/gpu-card-model``.

A bad item is reported with the file, the line of the offending field (of the item when
the field is missing), the field path as the column, and the item's position.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator, Mapping
from decimal import Decimal
from pathlib import Path
from typing import Any

import yaml

from wlmap.errors import PlacementInputError, WorkloadShapeError
from wlmap.placement.nodes.node import Node
from wlmap.quantity import parse_quantity

__all__ = [
    "GPU_RESOURCE",
    "PRODUCT_LABEL",
    "UNKNOWN_MODEL",
    "nodes_from_objects",
    "read_kube_nodes",
]

GPU_RESOURCE = "nvidia.com/gpu"
PRODUCT_LABEL = "nvidia.com/gpu.product"
# The node dump the openb trace ships (node_yaml/) counts GPUs and names models this way.
OPENB_GPU_RESOURCE = "alibabacloud.com/gpu-count"
OPENB_MODEL_LABEL = "alibabacloud.com/gpu-card-model"
UNKNOWN_MODEL = "unknown"
_MIB = 1024 * 1024
_LOADER: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

Field = tuple[str | int, ...]


class _Bad(Exception):
    """An item's field is wrong; located to a line by the caller."""

    def __init__(self, field: Field, message: str) -> None:
        super().__init__(message)
        self.field, self.message = field, message


def read_kube_nodes(path: str | Path) -> list[Node]:
    """The nodes of a node list file (YAML or JSON, one or several documents).

    Raises:
        PlacementInputError: the file cannot be read or parsed, an item is not a Node, or
            a field is missing or invalid; the message names the file, line, field and item.
    """
    file = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise PlacementInputError(
            f"cannot read it: {exc}", file=file, row=None, column=None
        ) from None
    try:
        documents = [d for d in yaml.load_all(text, Loader=_LOADER) if d is not None]
    except yaml.YAMLError as exc:
        try:  # JSON that YAML refuses (tabs for indentation)
            documents = [json.loads(text)]
        except ValueError:
            mark = getattr(exc, "problem_mark", None)
            row = mark.line + 1 if mark is not None else None
            raise PlacementInputError(
                f"not YAML or JSON: {getattr(exc, 'problem', None) or exc}",
                file=file,
                row=row,
                column=None,
            ) from None
    return nodes_from_objects(documents, file=file, text=text)


def nodes_from_objects(
    documents: list[Any], *, file: str = "<input>", text: str | None = None
) -> list[Node]:
    """The nodes of parsed documents (each a Node or a List of Nodes).

    Args:
        documents: the parsed documents, in file order.
        file: where they were read from, for error messages.
        text: the file's text, to give errors a line number.

    Raises:
        PlacementInputError: as :func:`read_kube_nodes`.
    """
    nodes = []
    for position, item in _items(documents):
        try:
            nodes.append(_node(item))
        except _Bad as bad:
            name = item.get("metadata", {}).get("name") if isinstance(item, Mapping) else None
            label = _label(position, len(documents)) + (
                f" ({name})" if isinstance(name, str) else ""
            )
            raise PlacementInputError(
                f"{label}: {bad.message}",
                file=file,
                row=_line(text, position, bad.field) if text is not None else None,
                column=".".join(str(part) for part in bad.field) or None,
            ) from None
    if not nodes:
        raise PlacementInputError("no Node objects in it", file=file, row=None, column=None)
    return nodes


Position = tuple[int, int | None]  # (document index, item index in its List or None)


def _items(documents: list[Any]) -> Iterator[tuple[Position, Any]]:
    for number, document in enumerate(documents):
        items = document.get("items") if isinstance(document, Mapping) else None
        kind = document.get("kind") if isinstance(document, Mapping) else None
        if isinstance(kind, str) and kind.endswith("List") and isinstance(items, list):
            for index, item in enumerate(items):
                yield (number, index), item
        else:
            yield (number, None), document


def _label(position: Position, documents: int) -> str:
    document, index = position
    parts = [f"document {document + 1}"] if documents > 1 or index is None else []
    if index is not None:
        parts.append(f"items[{index}]")
    return " ".join(parts)


def _line(text: str, position: Position, field: Field) -> int | None:
    """The 1-based line of a field of an item (of the item when the field is absent)."""
    try:
        trees = [t for t in yaml.compose_all(text, Loader=_LOADER) if t is not None]
    except yaml.YAMLError:
        return None
    document, index = position
    if document >= len(trees):
        return None
    node: yaml.Node = trees[document]
    line = int(node.start_mark.line)
    path: list[str | int] = ["items", index] if index is not None else []
    for key in [*path, *field]:
        found = _child(node, key)
        if found is None:
            break
        line, node = found
    return line + 1


def _child(node: yaml.Node, key: str | int) -> tuple[int, yaml.Node] | None:
    """The 0-based line where ``key`` is written in ``node``, and its value."""
    if isinstance(node, yaml.MappingNode):
        for name, value in node.value:
            if getattr(name, "value", None) == key:
                return int(name.start_mark.line), value
    if isinstance(node, yaml.SequenceNode) and isinstance(key, int) and key < len(node.value):
        item: yaml.Node = node.value[key]
        return int(item.start_mark.line), item
    return None


def _node(item: Any) -> Node:
    if not isinstance(item, Mapping):
        raise _Bad((), f"expected a Node object, got {type(item).__name__}")
    if item.get("kind") != "Node":
        raise _Bad(("kind",), f"expected kind Node, got {item.get('kind')!r}")
    metadata = item.get("metadata")
    metadata = metadata if isinstance(metadata, Mapping) else {}
    name = metadata.get("name")
    if not isinstance(name, str) or not name:
        raise _Bad(("metadata", "name"), "expected the node's name")
    status = item.get("status")
    status = status if isinstance(status, Mapping) else {}
    part = "allocatable" if "allocatable" in status else "capacity"
    resources = status.get(part)
    if not isinstance(resources, Mapping):
        raise _Bad(("status", "allocatable"), "expected the node's allocatable resources")
    cpu = _amount(resources, part, "cpu", required=True)
    memory = _amount(resources, part, "memory", required=True)
    counted = GPU_RESOURCE if OPENB_GPU_RESOURCE not in resources else OPENB_GPU_RESOURCE
    gpus = _amount(resources, part, counted, required=False)
    if gpus != int(gpus):
        raise _Bad(("status", part, counted), f"expected a whole number of GPUs, got {gpus}")
    labels = _strings(metadata.get("labels"), ("metadata", "labels"))
    model = labels.get(PRODUCT_LABEL) or labels.get(OPENB_MODEL_LABEL) or UNKNOWN_MODEL
    return Node(
        name=name,
        cpu_milli=math.floor(cpu * 1000),
        memory_mib=math.floor(memory / _MIB),
        gpus=int(gpus),
        gpu_model=model if gpus else None,
        labels=labels,
        taints=_taints(item.get("spec")),
    )


def _amount(resources: Mapping[str, Any], part: str, resource: str, *, required: bool) -> Decimal:
    field: Field = ("status", part, resource)
    if resource not in resources:
        if required:
            raise _Bad(field, f"expected the allocatable {resource}")
        return Decimal(0)
    try:
        value = parse_quantity(resources[resource])
    except WorkloadShapeError as exc:
        raise _Bad(field, str(exc)) from None
    if value < 0:
        raise _Bad(field, f"expected a quantity of 0 or more, got {resources[resource]!r}")
    return value


def _strings(value: Any, field: Field) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise _Bad(field, f"expected a mapping of strings, got {type(value).__name__}")
    return {str(k): "" if v is None else str(v) for k, v in value.items()}


def _taints(spec: Any) -> tuple[Mapping[str, str], ...]:
    taints = spec.get("taints") if isinstance(spec, Mapping) else None
    if taints is None:
        return ()
    if not isinstance(taints, list):
        raise _Bad(("spec", "taints"), f"expected a list of taints, got {type(taints).__name__}")
    return tuple(_strings(t, ("spec", "taints", i)) for i, t in enumerate(taints))
