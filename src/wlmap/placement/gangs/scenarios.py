"""The clusters gang placement is measured on: real and published shapes as labelled nodes.

Each :class:`Scenario` is a topology, the tier weights its fabric suggests and the level
that is one NVLink domain (where tensor-parallel slices go), plus the assumptions it rests
on in words, which the simulator writes beside its results:

- ``lingjun``: the Alibaba Lingjun 2023 Clos network (``data/topo.csv``: one row per host
  with its core ``DSW``, aggregation ``PSW`` and top-of-rack ``ASW`` switch). Levels
  ``DSW > PSW > ASW``. The file gives no GPU count: 8 GPUs per host is an assumption (the
  dataset's hosts are 8-GPU training servers). NVLink stays inside a host.
  Weights: same host 0, same ToR 10, same aggregation 36, across aggregation (same core) 72.
- ``gb200``: a GB200 NVL72-like cluster: blocks of 8 racks, a rack is one NVLink domain of
  18 nodes x 4 GPUs. Levels ``block > nvidia.com/gpu.clique`` (the label NVIDIA's GPU
  feature discovery sets per NVLink domain). Weights: same rack 1 (NVLink), same block 10,
  across blocks 72. The block count is the parameter.
- ``kueue-tas``: the shape of Kueue's TAS performance test (1 block x 10 racks x 64 nodes,
  ``test/performance/scheduler/configs``), with its label keys
  ``cloud.provider.com/topology-block > cloud.provider.com/topology-rack``. The test's nodes
  have no GPUs: 8 GPUs per node is an assumption. Weights: same node 0, same rack 10, same
  block 36, across 72.
- ``n256g8``: the Tiresias simulator's cluster (``simulator/n256g8.csv``: switches, nodes per
  switch, GPUs per node = 8 x 32 x 8). Level ``switch``. Weights: same node 0, same switch
  10, across switches 36 (one aggregation layer above the switches).
- a Kubernetes node list with topology labels and the level keys to read, coarsest first;
  default weights (:func:`default_weights`).

Bad input is a :class:`PlacementInputError` naming the file, row and column.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from wlmap.errors import PlacementInputError
from wlmap.placement.gangs.quality import TierWeights, default_weights
from wlmap.placement.gangs.tree import Topology, TopologyError, build_topology
from wlmap.placement.nodes import Node, csv_rows, read_kube_nodes

__all__ = [
    "GB200_LEVELS",
    "KUEUE_TAS_LEVELS",
    "LINGJUN_LEVELS",
    "SCENARIO_NAMES",
    "TIRESIAS_LEVELS",
    "Scenario",
    "gb200",
    "kueue_tas",
    "lingjun",
    "node_list",
    "tiresias",
    "tiresias_spec",
]

LINGJUN_LEVELS = ("DSW", "PSW", "ASW")
GB200_LEVELS = ("block", "nvidia.com/gpu.clique")
KUEUE_TAS_LEVELS = ("cloud.provider.com/topology-block", "cloud.provider.com/topology-rack")
TIRESIAS_LEVELS = ("switch",)
SCENARIO_NAMES = ("lingjun", "gb200", "kueue-tas", "n256g8")
# Tiresias simulator/n256g8.csv: num_switch, num_node_p_switch, num_gpu_p_node
N256G8 = (8, 32, 8)
_TIRESIAS_COLUMNS = ("num_switch", "num_node_p_switch", "num_gpu_p_node")
# CPU and memory do not take part in gang placement; nodes still carry plausible ones.
_CPU_MILLI, _MEMORY_MIB = 128_000, 1024 * 1024


@dataclass(frozen=True, eq=False)
class Scenario:
    """A cluster to place gangs on.

    Attributes:
        name: the scenario's name as results spell it.
        topology: nodes grouped into domains.
        weights: the communication cost of a pod pair by the finest domain it shares.
        nvlink_level: the level index one NVLink domain is (the node level when NVLink
            stays inside a node); tensor-parallel slices go there.
        assumptions: what the scenario assumes beyond its source, in words.
    """

    name: str
    topology: Topology
    weights: TierWeights
    nvlink_level: int
    assumptions: tuple[str, ...] = ()

    @property
    def gpus(self) -> int:
        """GPUs of the whole cluster."""
        return int(self.topology.gpus.sum())

    def describe(self) -> str:
        """One line: name, size, levels, weights and assumptions."""
        levels = " > ".join(self.topology.levels)
        tiers = ", ".join(f"{w:g}" for w in (*self.weights.levels, self.weights.node))
        line = (
            f"{self.name}: {len(self.topology.nodes)} nodes, {self.gpus} GPUs, levels {levels}; "
            f"weights across {self.weights.across:g}, per level {tiers} (node last)"
        )
        return line + "".join(f"; ASSUMED: {a}" for a in self.assumptions)


def _node(name: str, gpus: int, labels: dict[str, str]) -> Node:
    return Node(name, _CPU_MILLI, _MEMORY_MIB, gpus, "GPU", labels=labels)


def lingjun(path: str | Path, *, gpus_per_host: int = 8) -> Scenario:
    """The Lingjun Clos network from its ``topo.csv`` (columns ``ip, DSW, PSW, ASW``).

    Raises:
        PlacementInputError: the file cannot be read, a column is missing, a value is
            empty or a host repeats; naming the file, row and column.
    """
    file = str(path)
    rows = _csv_rows(file, ("ip", *LINGJUN_LEVELS))
    nodes: list[Node] = []
    seen: dict[str, int] = {}
    for line, row in rows:
        for column in ("ip", *LINGJUN_LEVELS):
            if not row[column].strip():
                raise PlacementInputError(
                    "expected a value, got an empty field", file=file, row=line, column=column
                )
        host = row["ip"].strip()
        if host in seen:
            raise PlacementInputError(
                f"host {host[:12]}... is listed again (first on row {seen[host]})",
                file=file,
                row=line,
                column="ip",
            )
        seen[host] = line
        labels = {level: row[level].strip() for level in LINGJUN_LEVELS}
        nodes.append(_node(host, gpus_per_host, labels))
    weights = TierWeights(across=72.0, levels=(72.0, 36.0, 10.0), node=0.0)
    assumption = f"{gpus_per_host} GPUs per host (topo.csv gives no GPU count)"
    return Scenario("lingjun", _build(LINGJUN_LEVELS, nodes, file), weights, 3, (assumption,))


def gb200(blocks: int = 4) -> Scenario:
    """A GB200 NVL72-like cluster: ``blocks`` blocks x 8 racks x 18 nodes x 4 GPUs."""
    if blocks < 1:
        raise ValueError(f"blocks must be >= 1, got {blocks}")
    nodes = [
        _node(
            f"gb-b{b:02d}-r{r}-n{n:02d}",
            4,
            {GB200_LEVELS[0]: f"b{b:02d}", GB200_LEVELS[1]: f"b{b:02d}.r{r}"},
        )
        for b in range(blocks)
        for r in range(8)
        for n in range(18)
    ]
    weights = TierWeights(across=72.0, levels=(10.0, 1.0), node=0.0)
    return Scenario("gb200", build_topology(GB200_LEVELS, nodes), weights, 1)


def kueue_tas(*, gpus_per_node: int = 8) -> Scenario:
    """Kueue's TAS performance shape: 1 block x 10 racks x 64 nodes."""
    block, rack = KUEUE_TAS_LEVELS
    nodes = [
        _node(f"kueue-r{r}-n{n:02d}", gpus_per_node, {block: "b1", rack: f"r{r}"})
        for r in range(10)
        for n in range(64)
    ]
    weights = TierWeights(across=72.0, levels=(36.0, 10.0), node=0.0)
    assumption = f"{gpus_per_node} GPUs per node (Kueue's test nodes have CPU and memory only)"
    return Scenario("kueue-tas", build_topology(KUEUE_TAS_LEVELS, nodes), weights, 2, (assumption,))


def tiresias_spec(path: str | Path) -> tuple[int, int, int]:
    """Switches, nodes per switch and GPUs per node of a Tiresias cluster spec CSV.

    Raises:
        PlacementInputError: a column is missing or a value is not a whole number >= 1.
    """
    file = str(path)
    rows = _csv_rows(file, _TIRESIAS_COLUMNS)
    if len(rows) != 1:
        raise PlacementInputError(
            f"expected one cluster row, got {len(rows)}", file=file, row=None, column=None
        )
    line, row = rows[0]
    numbers = []
    for column in _TIRESIAS_COLUMNS:
        text = row[column].strip()
        if not text.isdigit() or int(text) < 1:
            raise PlacementInputError(
                f"expected a whole number >= 1, got {text!r}", file=file, row=line, column=column
            )
        numbers.append(int(text))
    return numbers[0], numbers[1], numbers[2]


def tiresias(path: str | Path | None = None) -> Scenario:
    """The Tiresias ``n256g8`` cluster, or the cluster of another Tiresias spec file."""
    switches, per_switch, gpus = tiresias_spec(path) if path is not None else N256G8
    nodes = [
        _node(f"tr-s{s}-n{n:02d}", gpus, {TIRESIAS_LEVELS[0]: f"s{s}"})
        for s in range(switches)
        for n in range(per_switch)
    ]
    name = Path(path).stem if path is not None else "n256g8"
    weights = TierWeights(across=36.0, levels=(10.0,), node=0.0)
    return Scenario(name, build_topology(TIRESIAS_LEVELS, nodes), weights, 1)


def node_list(path: str | Path, levels: Sequence[str]) -> Scenario:
    """A Kubernetes node list (``kubectl get nodes -o yaml``) grouped by ``levels``.

    NVLink is taken to stay inside a node; the weights are :func:`default_weights`.

    Raises:
        PlacementInputError: the file is unreadable, or a node lacks a level's label.
    """
    file = str(path)
    nodes = [n for n in read_kube_nodes(file) if n.gpus > 0]
    if not nodes:
        raise PlacementInputError("no node has a GPU", file=file, row=None, column=None)
    topology = _build(levels, nodes, file)
    weights = default_weights(len(topology.levels))
    return Scenario(Path(file).stem, topology, weights, len(topology.levels))


def _build(levels: Sequence[str], nodes: Sequence[Node], file: str) -> Topology:
    try:
        return build_topology(levels, nodes)
    except TopologyError as exc:
        raise PlacementInputError(str(exc), file=file, row=None, column=None) from None


def _csv_rows(file: str, columns: Sequence[str]) -> list[tuple[int, dict[str, str]]]:
    """The rows of a CSV with their 1-based line numbers (the header is line 1)."""
    rows = list(csv_rows(Path(file), columns))
    if not rows:
        raise PlacementInputError("no data rows", file=file, row=None, column=None)
    return rows
