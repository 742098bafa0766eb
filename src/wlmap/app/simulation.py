"""Packing simulation (``wlmap simulate``): reading the inputs, the runs per policy and
seed, the rows.

Nothing here is imported before a simulation runs (numpy, HiGHS and the policies load on
first use).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from wlmap.errors import PlacementInputError
from wlmap.placement.nodes import Node
from wlmap.placement.packing import Pod

if TYPE_CHECKING:
    from wlmap.sources.workloads import Found

BOUND = "bound"


@dataclass(frozen=True)
class PodSource:
    """The pods to place and where they came from.

    Attributes:
        pods: in input order.
        file: the openb CSV they were read from, or "" for workload manifests.
        trace: the label of the ``trace`` column.
    """

    pods: list[Pod]
    file: str
    trace: str


def policy_names() -> list[str]:
    """Every packing policy by name, then the offline bound."""
    from wlmap.placement.packing import POLICIES  # noqa: PLC0415 - loads numpy

    return [*POLICIES, BOUND]


def pod_source(
    cluster: Sequence[Node],
    *,
    pods: str | None,
    workloads: Callable[[], Sequence[Found]],
    trace: str | None,
    warn: Callable[[str], None],
) -> PodSource:
    """The pods to place: an openb pod CSV (``pods``), else the pods of the workloads.

    Raises:
        PlacementInputError: a GPU pod asks for a model no node has.
    """
    if pods:
        from wlmap.placement.packing import read_openb_pods  # noqa: PLC0415 - start-up cost

        listed = read_openb_pods(pods)
        check_models(cluster, listed, pods, csv=True)
        return PodSource(listed, pods, trace or trace_name(pods))
    from wlmap.placement.feed import workload_pods  # noqa: PLC0415 - start-up cost

    models = sorted({n.gpu_model for n in cluster if n.gpus > 0 and n.gpu_model})
    found = workloads()
    warnings: list[str] = []
    placed = []
    for item in found:
        origin = item.manifest.origin
        mine = workload_pods(item.view, file=origin, models=models, warnings=warnings)
        check_models(cluster, mine, origin, csv=False)
        placed.extend(mine)
    for warning in warnings:
        warn(warning)
    if not placed:
        warn("the workloads have no pods to place")
    return PodSource(placed, "", trace or "workloads")


def read_nodes(path: str) -> list[Node]:
    """An openb node CSV (``.csv``) or a Kubernetes node list (anything else)."""
    if path.endswith(".csv"):
        from wlmap.placement.packing import read_openb_nodes  # noqa: PLC0415 - start-up cost

        return read_openb_nodes(path)
    from wlmap.placement.nodes import read_kube_nodes  # noqa: PLC0415 - start-up cost

    return read_kube_nodes(path)


def trace_name(path: str) -> str:
    """``default`` for ``openb_pod_list_default.csv``; the file's stem otherwise."""
    stem = Path(path).stem
    return stem.removeprefix("openb_pod_list_")


def check_models(nodes: Sequence[Node], pods: Sequence[Pod], file: str, *, csv: bool) -> None:
    """Every GPU pod accepts some model the cluster has.

    Raises:
        PlacementInputError: naming the pod's file, line and the ``gpu_spec`` column (an
            openb CSV, ``csv``), or its file, workload and component (manifests).
    """
    models = {n.gpu_model for n in nodes if n.gpus > 0}
    for index, pod in enumerate(pods):
        if pod.num_gpu and pod.gpu_models is not None and not pod.gpu_models & models:
            wanted = ", ".join(sorted(pod.gpu_models))
            have = ", ".join(sorted(m for m in models if m)) or "none"
            reason = f"no node has the GPU model {wanted} (the nodes have {have})"
            if csv:
                raise PlacementInputError(
                    f"pod {pod.name}: {reason}", file=file, row=index + 2, column="gpu_spec"
                )
            raise PlacementInputError(
                f"{pod.origin or pod.name}: {reason}", file=file, row=None, column=None
            )


class Progress:
    """One line on a terminal's stderr, redrawn per run; silent in a pipe or under CI."""

    def __init__(self, total: int) -> None:
        self.total = total
        self.done = 0
        self.shown = sys.stderr.isatty() and not os.environ.get("CI")

    def step(self, label: str) -> None:
        """Show that the next run, ``label``, is starting."""
        if self.shown:
            filled = 20 * self.done // max(self.total, 1)
            bar = "#" * filled + "-" * (20 - filled)
            sys.stderr.write(f"\r[{bar}] {self.done}/{self.total} {label}\x1b[K")
            sys.stderr.flush()
        self.done += 1

    def close(self) -> None:
        """Clear the line."""
        if self.shown:
            sys.stderr.write("\r\x1b[K")
            sys.stderr.flush()


def runs(policies: Sequence[str], seeds: Sequence[int]) -> Iterator[tuple[str, int]]:
    """Every (policy, seed) pair, policy by policy."""
    for policy in policies:
        for seed in seeds:
            yield policy, seed


def placement_rows(
    nodes: Sequence[Node], source: PodSource, policies: Sequence[str], seeds: Sequence[int]
) -> list[dict[str, Any]]:
    """Where each pod goes, placed once each in input order, per policy and seed."""
    from wlmap.placement.packing import (  # noqa: PLC0415 - loads numpy
        ClusterState,
        make_policy,
        place_each,
    )

    rows: list[dict[str, Any]] = []
    pairs = list(runs(policies, seeds))
    progress = Progress(len(pairs))
    for name, seed in pairs:
        progress.step(f"{name} seed {seed}")
        state = ClusterState.from_nodes(nodes)
        policy = make_policy(name)
        policy.reset(state, source.pods, seed)
        for pod, placement in place_each(state, policy, source.pods):
            rows.append(
                {
                    "trace": source.trace,
                    "policy": name,
                    "seed": seed,
                    "pod": pod.name,
                    "origin": pod.origin,
                    "cpu_milli": pod.cpu_milli,
                    "memory_mib": pod.memory_mib,
                    "num_gpu": pod.num_gpu,
                    "gpu_milli": pod.gpu_milli,
                    "node": nodes[placement.node].name if placement else None,
                    "gpus": list(placement.gpus) if placement else None,
                }
            )
    progress.close()
    return rows


def curve_rows(
    nodes: Sequence[Node],
    source: PodSource,
    policies: Sequence[str],
    seeds: Sequence[int],
    ratio: float,
) -> list[dict[str, Any]]:
    """Allocation per arrived share, per policy and seed; ``bound`` rows for the bound."""
    from wlmap.placement.packing import simulate  # noqa: PLC0415 - loads numpy

    rows: list[dict[str, Any]] = []
    pairs = list(runs(policies, seeds))
    progress = Progress(len(pairs))
    for name, seed in pairs:
        progress.step(f"{name} seed {seed}")
        if name == BOUND:
            head = {"trace": source.trace, "policy": name, "seed": seed}
            rows.extend({**head, **row} for row in bound_rows(nodes, source.pods, seed, ratio))
            continue
        result = simulate(nodes, source.pods, name, seed=seed, ratio=ratio)
        rows.extend(result.to_rows(source.trace))
    progress.close()
    return rows


def bound_rows(
    nodes: Sequence[Node], pods: Sequence[Pod], seed: int, ratio: float
) -> list[dict[str, Any]]:
    """The offline bound of the run's arrival sequence at every whole arrived percent."""
    from wlmap.placement.packing import (  # noqa: PLC0415 - loads numpy
        MAX_ARRIVED_PERCENT,
        offline_bound,
        tune_to_capacity,
    )

    capacity = sum(n.gpus for n in nodes) * 1000
    arrivals = tune_to_capacity(pods, capacity, ratio=ratio, seed=seed)
    bound = offline_bound(nodes, arrivals, range(MAX_ARRIVED_PERCENT + 1))
    return [
        {
            "arrived_pct": p.arrived_percent,
            "allocation_pct": round(p.bound_percent, 4),
        }
        for p in bound.points
    ]


def plot_results(rows: Sequence[dict[str, str]], stem: Path) -> list[Path]:
    """Plot the allocation per arrived share of each policy in ``rows`` (as ``simulate``
    writes them) beside ``stem``; the files written (a PNG and an SVG)."""
    from wlmap.placement.packing import curves, plot_allocation  # noqa: PLC0415 - matplotlib

    return plot_allocation(curves(rows), stem)
