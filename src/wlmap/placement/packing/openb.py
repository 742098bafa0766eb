"""Readers for the Alibaba openb GPU cluster trace (cluster-trace-gpu-v2023) CSV files.

Node lists have the columns ``sn, cpu_milli, memory_mib, gpu, model``; pod lists
``name, cpu_milli, memory_mib, num_gpu, gpu_milli`` and optionally ``gpu_spec`` (accepted
GPU models separated by ``|``; empty accepts any). Other columns (QoS, phase, times) are
not used: the FGD experiments place every pod without departures. Every bad value is
reported as a ``PlacementInputError`` naming the file, the line and the column.
"""

from __future__ import annotations

from pathlib import Path

from wlmap.errors import PlacementInputError
from wlmap.placement.nodes import Node, csv_rows
from wlmap.placement.packing.pods import Pod, request_problem

NODE_COLUMNS = ("sn", "cpu_milli", "memory_mib", "gpu", "model")
POD_COLUMNS = ("name", "cpu_milli", "memory_mib", "num_gpu", "gpu_milli")


def _integer(path: Path, line: int, row: dict[str, str], column: str) -> int:
    text = row[column].strip()
    try:
        value = int(text)
    except ValueError:
        raise PlacementInputError(
            f"expected a whole number, got {text!r}", file=str(path), row=line, column=column
        ) from None
    if value < 0:
        raise PlacementInputError(
            f"expected a number >= 0, got {value}", file=str(path), row=line, column=column
        )
    return value


def read_openb_nodes(path: str | Path) -> list[Node]:
    """The nodes of an openb node list, in file order."""
    source = Path(path)
    nodes: list[Node] = []
    seen: dict[str, int] = {}
    for line, row in csv_rows(source, NODE_COLUMNS):
        name = row["sn"].strip()
        if not name:
            raise PlacementInputError("empty node name", file=str(source), row=line, column="sn")
        if name in seen:
            raise PlacementInputError(
                f"node {name!r} already defined on line {seen[name]}",
                file=str(source),
                row=line,
                column="sn",
            )
        seen[name] = line
        gpus = _integer(source, line, row, "gpu")
        model = row["model"].strip() or None
        if gpus > 0 and model is None:
            raise PlacementInputError(
                f"a node with {gpus} GPU(s) needs a GPU model",
                file=str(source),
                row=line,
                column="model",
            )
        nodes.append(
            Node(
                name=name,
                cpu_milli=_integer(source, line, row, "cpu_milli"),
                memory_mib=_integer(source, line, row, "memory_mib"),
                gpus=gpus,
                gpu_model=model if gpus > 0 else None,
            )
        )
    return nodes


def read_openb_pods(path: str | Path) -> list[Pod]:
    """The pods of an openb pod list, in file order."""
    source = Path(path)
    pods: list[Pod] = []
    for line, row in csv_rows(source, POD_COLUMNS):
        spec = (row.get("gpu_spec") or "").strip()
        models = frozenset(m.strip() for m in spec.split("|") if m.strip())
        pod = Pod(
            name=row["name"].strip(),
            cpu_milli=_integer(source, line, row, "cpu_milli"),
            memory_mib=_integer(source, line, row, "memory_mib"),
            num_gpu=_integer(source, line, row, "num_gpu"),
            gpu_milli=_integer(source, line, row, "gpu_milli"),
            gpu_models=models or None,
        )
        problem = request_problem(pod)
        if problem is not None:
            raise PlacementInputError(problem, file=str(source), row=line, column="gpu_milli")
        pods.append(pod)
    return pods


__all__ = ["NODE_COLUMNS", "POD_COLUMNS", "read_openb_nodes", "read_openb_pods"]
