"""Packing and Clustering against a literal loop over the published simulator's rules.

Issue 10 leaves GPU Packing on cpu200 0.57 below its published mean. This places each run's
arrivals twice: with wlmap's policy (numpy arrays, cached per-node summaries) and with a
plain transcription of the FGD simulator's rules, one node at a time and nothing cached:
filter on CPU, memory and GPUs; score with the plugin's integer formula (a CPU-only pod
scores 0); keep the highest score, the lowest ``tie_rank`` on ties (the smallest node
name there); take the ``best`` GPUs. It prints, per run, the placements that differ (node
or GPUs) and how much slower the loop is than the policy timed in the same run.

Run: ``python benchmarks/placement_published_rules.py [--trace cpu200] [--seeds 42-51]
[--policies packing,clustering]``
"""

from __future__ import annotations

import argparse
import sys
import time

from placement_fgd import TRACES, seeds_of

from wlmap.placement.nodes import Node
from wlmap.placement.packing import (
    MILLI,
    ClusterState,
    Placement,
    Pod,
    make_policy,
    place_each,
    read_openb_nodes,
    read_openb_pods,
    tie_rank,
    tune_to_capacity,
)


def request_class(pod: Pod) -> str:
    """Clustering's class of a GPU pod, as its GPU annotations give it."""
    return "shared" if pod.gpu_milli < MILLI else f"{pod.num_gpu}-gpu"


def packing_score(free: list[int], pod: Pod) -> int:
    """The published GPU Packing score of one feasible node."""
    idle = sum(1 for g in free if g == MILLI)
    if idle == len(free):
        return max(100 // 3 - idle, idle)
    wanted, taken, whole = pod.num_gpu, [], 0
    for g in sorted(range(len(free)), key=lambda i: free[i]):  # least free first, stable
        if wanted and pod.gpu_milli <= free[g]:
            wanted -= 1
            taken.append(g)
            whole += free[g] == MILLI
    if whole:
        return max(100 // 2 - whole, 100 // 3)
    return max(100 - sum(free[g] * 100 // MILLI for g in taken) // 10, 100 // 2)


def clustering_score(free: list[int], classes: set[str], pod: Pod) -> int:
    """The published GPU Clustering score of one feasible node."""
    fill = 100 // 4 * (8 * MILLI - sum(free)) // (8 * MILLI)
    if request_class(pod) in classes:
        return fill + (75 if len(classes) == 1 else 50)
    return fill + (25 if not classes else 0)


def fits(node: Node, cpu: int, memory: int, free: list[int], pod: Pod) -> bool:
    if cpu < pod.cpu_milli or memory < pod.memory_mib:
        return False
    if pod.num_gpu == 0:
        return True
    if pod.gpu_models is not None and node.gpu_model not in pod.gpu_models:
        return False
    if pod.gpu_milli >= MILLI:
        return sum(1 for g in free if g == MILLI) >= pod.num_gpu
    return any(g >= pod.gpu_milli for g in free)


def best_gpus(free: list[int], pod: Pod) -> tuple[int, ...]:
    if pod.num_gpu == 0:
        return ()
    if pod.gpu_milli >= MILLI:
        return tuple([g for g, left in enumerate(free) if left == MILLI][: pod.num_gpu])
    fitting = [g for g, left in enumerate(free) if left >= pod.gpu_milli]
    return (min(fitting, key=lambda g: (free[g], g)),)


def literal(
    nodes: list[Node], arrivals: list[Pod], policy: str, seed: int
) -> list[Placement | None]:
    """Where the published rules put each pod, one node at a time."""
    rank = [int(r) for r in tie_rank(len(nodes), seed)]
    cpu = [n.cpu_milli for n in nodes]
    memory = [n.memory_mib for n in nodes]
    free = [[MILLI] * n.gpus for n in nodes]
    classes: list[set[str]] = [set() for _ in nodes]
    out: list[Placement | None] = []
    for pod in arrivals:
        best: tuple[int, int, int] | None = None  # (score, -rank, node)
        for i, node in enumerate(nodes):
            if not fits(node, cpu[i], memory[i], free[i], pod):
                continue
            score = 0
            if pod.num_gpu and policy == "packing":
                score = packing_score(free[i], pod)
            elif pod.num_gpu:
                score = clustering_score(free[i], classes[i], pod)
            if best is None or (score, -rank[i]) > best[:2]:
                best = (score, -rank[i], i)
        if best is None:
            out.append(None)
            continue
        i = best[2]
        gpus = best_gpus(free[i], pod)
        cpu[i] -= pod.cpu_milli
        memory[i] -= pod.memory_mib
        for g in gpus:
            free[i][g] -= pod.gpu_milli
        if pod.num_gpu:
            classes[i].add(request_class(pod))
        out.append(Placement(i, gpus))
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--trace", default="cpu200")
    parser.add_argument("--seeds", default="42-51")
    parser.add_argument("--policies", default="packing,clustering")
    args = parser.parse_args()
    if not TRACES.exists():
        print(f"{TRACES} is not available", file=sys.stderr)
        return 1
    nodes = read_openb_nodes(TRACES / "openb_node_list_gpu_node.csv")
    pods = read_openb_pods(TRACES / f"openb_pod_list_{args.trace}.csv")
    capacity = sum(n.gpus for n in nodes) * MILLI
    print(
        f"{'trace':<8} {'policy':<11} {'seed':>4} {'pods':>6} {'differ':>6} {'loop / policy':>13}"
    )
    total = 0
    for policy in args.policies.split(","):
        for seed in seeds_of(args.seeds):
            arrivals = tune_to_capacity(pods, capacity, ratio=1.3, seed=seed)
            started = time.perf_counter()
            state = ClusterState.from_nodes(nodes)
            chosen = make_policy(policy)
            chosen.reset(state, arrivals, seed)
            ours = [placement for _, placement in place_each(state, chosen, arrivals)]
            fast = time.perf_counter() - started
            started = time.perf_counter()
            reference = literal(nodes, arrivals, policy, seed)
            slow = time.perf_counter() - started
            differ = sum(a != b for a, b in zip(ours, reference, strict=True))
            total += differ
            print(
                f"{args.trace:<8} {policy:<11} {seed:>4} {len(arrivals):>6} {differ:>6} "
                f"{slow / fast:13.1f}"
            )
    print(f"{total} placement(s) differ from the published rules")
    return 1 if total else 0


if __name__ == "__main__":
    sys.exit(main())
