"""How ``wlmap plan`` shows its plans: JSON/YAML data, or text with a ranking first.

JSON carries typed values and nulls; the text says for each gang where it fits (the one
domain holding it, its nodes and the policy's reason) or why it does not, then the pods
still waiting for a node.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from wlmap.app.plan import CLUSTER, GangPlan, Planned, Topology, level_word, plan_document

__all__ = ["document", "table"]


def document(ranked: Sequence[Planned]) -> dict[str, Any]:
    """Every cluster's plan as JSON/YAML data, best first."""
    return plan_document(ranked)


def table(ranked: Sequence[Planned]) -> str:
    """The plans as text: a ranking when there are several clusters, then each gang."""
    lines: list[str] = []
    if len(ranked) > 1:
        rows = [("RANK", "CLUSTER", "FITS", "GANGS", "COST", "FREE GPUS")]
        for rank, planned in enumerate(ranked, 1):
            c = planned.cluster
            cost = "-" if c.cost is None else f"{c.cost:.3f}"
            rows.append(
                (str(rank), c.name, "yes" if c.fits else "no", f"{c.placed}/{len(c.plans)}",
                 cost, str(c.free_gpus))
            )  # fmt: skip
        widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
        lines += [
            "  ".join(v.ljust(w) for v, w in zip(r, widths, strict=True)).rstrip() for r in rows
        ]
        lines.append("")
    for planned in ranked:
        occupancy = planned.cluster.occupancy
        topology = occupancy.topology
        free = int(occupancy.capacity.node_free.sum())
        lines.append(
            f"cluster {occupancy.name}: {len(topology.nodes)} GPU nodes, "
            f"{int(topology.gpus.sum())} GPUs ({free} free after the plan)"
        )
        for plan in planned.cluster.plans:
            lines += _gang_lines(plan, occupancy.topology)
        waiting: dict[str, list[int]] = {}
        for pod in occupancy.pending:
            entry = waiting.setdefault(pod.workload, [0, 0])
            entry[0] += 1
            entry[1] += pod.gpus
        for workload, (pods, gpus) in waiting.items():
            lines.append(
                f"  pending: {pods} pod{'s' if pods > 1 else ''} of {workload} ({gpus} GPUs) "
                f"{'wait' if pods > 1 else 'waits'} for a node"
            )
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def _gang_lines(plan: GangPlan, topology: Topology) -> list[str]:
    request = plan.request
    head = f"  {request.name}: {request.pods} pods x {request.gpus_per_pod} GPU{'s' if request.gpus_per_pod > 1 else ''}"
    if plan.placement is None:
        assert plan.shortfall is not None
        return [head, f"    does not fit: {plan.shortfall.text}"]
    level = plan.level
    if level is None or level == CLUSTER:
        where = "spread over the cluster"
    elif level == len(topology.levels):
        parent = level_word(topology, level - 1)
        where = f"node {plan.domain[-1]} ({parent} {'/'.join(plan.domain[:-1])})"
    else:
        where = f"{level_word(topology, level)} {'/'.join(plan.domain)}"
    nodes = ", ".join(
        f"{topology.nodes[node].name} ({pods} pod{'s' if pods > 1 else ''})"
        for node, pods in plan.placement.nodes
    )
    return [
        head,
        f"    fits in {where}",
        f"    nodes: {nodes}",
        f"    why: {plan.placement.reason}",
    ]
