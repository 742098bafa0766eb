"""The offline bound is an upper bound: never below the best simulator run (pods in arrival
order, each failing only where it fits nowhere) found by exhaustive search on tiny
clusters, never above the arrived demand or the capacity, and tight where the packing
argument is simple."""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from itertools import combinations

import pytest

from wlmap.placement.nodes import Node
from wlmap.placement.packing import Pod, offline_bound
from wlmap.placement.packing._bound_program import configurations
from wlmap.placement.packing.bound import DFF_ORDERS, dff

FULL = 1000


def node(name: str, gpus: int, model: str | None = "G2", cpu: int = 8000, mem: int = 32768) -> Node:
    return Node(name, cpu, mem, gpus, model if gpus else None)


def pod(
    name: str,
    num_gpu: int,
    milli: int,
    cpu: int = 1000,
    mem: int = 1024,
    models: frozenset[str] | None = None,
) -> Pod:
    return Pod(name, cpu, mem, num_gpu, milli if num_gpu else 0, models)


def choices(node: Node, pod: Pod, cpu: int, mem: int, gpus: list[int]) -> list[tuple[int, ...]]:
    """Every way the pod fits the node with what is free on it (empty: it does not fit)."""
    if pod.cpu_milli > cpu or pod.memory_mib > mem:
        return []
    if pod.gpu_models is not None and pod.num_gpu and node.gpu_model not in pod.gpu_models:
        return []
    if pod.num_gpu == 0:
        return [()]
    if pod.gpu_milli < FULL:
        return [(g,) for g in range(node.gpus) if gpus[g] >= pod.gpu_milli]
    return list(combinations([g for g in range(node.gpus) if gpus[g] == FULL], pod.num_gpu))


def best_run(nodes: Sequence[Node], pods: Sequence[Pod], *, may_skip: bool = False) -> int:
    """The most GPU thousandths any run of the simulator allocates: pods in arrival order,
    each placed on any node and GPUs where it fits, failed only where it fits nowhere
    (``may_skip``: any subset of the pods may be left out instead)."""
    cpu = [n.cpu_milli for n in nodes]
    mem = [n.memory_mib for n in nodes]
    gpus = [[FULL] * n.gpus for n in nodes]
    best = 0

    def search(index: int, allocated: int) -> None:
        nonlocal best
        best = max(best, allocated)
        if index == len(pods):
            return
        p = pods[index]
        options = [
            (i, chosen)
            for i, n in enumerate(nodes)
            for chosen in choices(n, p, cpu[i], mem[i], gpus[i])
        ]
        if may_skip or not options:
            search(index + 1, allocated)  # leave this pod out, or it fails
        for i, chosen in options:
            cpu[i] -= p.cpu_milli
            mem[i] -= p.memory_mib
            for g in chosen:
                gpus[i][g] -= p.gpu_milli
            search(index + 1, allocated + p.num_gpu * p.gpu_milli)
            cpu[i] += p.cpu_milli
            mem[i] += p.memory_mib
            for g in chosen:
                gpus[i][g] += p.gpu_milli

    search(0, 0)
    return best


def random_instance(rng: random.Random) -> tuple[list[Node], list[Pod]]:
    nodes = [
        node(
            f"n{i}",
            rng.choice([1, 2, 2, 4] if i == 0 else [0, 1, 2, 2, 4]),
            rng.choice(["G2", "T4"]),
            cpu=rng.choice([2000, 4000, 8000]),
            mem=rng.choice([4096, 8192]),
        )
        for i in range(rng.randint(1, 3))
    ]
    pods = []
    for i in range(rng.randint(1, 6)):
        num_gpu = rng.choice([0, 1, 1, 1, 2, 4])
        milli = FULL if num_gpu != 1 else rng.choice([100, 190, 250, 400, 470, 500, 600, 810, 1000])
        models = rng.choice([None, None, frozenset({"G2"}), frozenset({"T4", "G2"})])
        cpu = rng.choice([500, 1000, 3000, 6000])
        mem = rng.choice([512, 2048, 6000])
        pods.append(pod(f"p{i}", num_gpu, milli, cpu, mem, models))
    return nodes, pods


@pytest.mark.parametrize("all_resources", [False, True])
@pytest.mark.parametrize("seed", range(150))
def test_bound_is_never_below_the_best_run(seed: int, all_resources: bool) -> None:
    nodes, pods = random_instance(random.Random(seed))
    capacity = sum(n.gpus for n in nodes) * FULL
    demand = sum(p.num_gpu * p.gpu_milli for p in pods)
    # a huge share lets every pod arrive whatever the capacity
    point = offline_bound(nodes, pods, levels=[10**6], all_resources=all_resources).points[0]
    assert point.arrived_gpu_milli == demand
    assert best_run(nodes, pods) <= point.bound_gpu_milli <= min(demand, capacity)


def cpu_tight_instance(rng: random.Random) -> tuple[list[Node], list[Pod]]:
    """Few CPUs per node and many CPU-only pods, so CPU often runs out before GPUs."""
    nodes = [
        node(f"n{i}", rng.choice([1, 2] if i == 0 else [0, 1, 2]), cpu=rng.choice([2000, 4000]))
        for i in range(rng.randint(1, 2))
    ]
    pods = []
    for i in range(rng.randint(2, 6)):
        num_gpu = rng.choice([0, 0, 0, 1, 1, 2])
        milli = rng.choice([250, 500, 600, 1000]) if num_gpu == 1 else FULL
        cpu = rng.choice([500, 1000, 1500, 2500, 3000])
        pods.append(pod(f"p{i}", num_gpu, milli, cpu, rng.choice([512, 2048, 6000, 30000])))
    return nodes, pods


@pytest.mark.parametrize("seed", range(150))
def test_bound_is_never_below_the_best_run_where_cpu_runs_out(seed: int) -> None:
    nodes, pods = cpu_tight_instance(random.Random(seed))
    point = offline_bound(nodes, pods, levels=[10**6], all_resources=True).points[0]
    assert best_run(nodes, pods) <= point.bound_gpu_milli


def test_cpu_only_pods_placed_first_take_the_cpu_gpu_pods_need() -> None:
    # the CPU-only pod fits when it comes, so every run places it; the GPU pod then lacks CPU
    nodes = [node("n", 2, cpu=4000)]
    pods = [pod("cpu", 0, 0, cpu=3000), pod("a", 1, FULL, cpu=1000), pod("b", 1, FULL, cpu=1000)]
    assert best_run(nodes, pods, may_skip=True) == 2 * FULL  # a subset could leave it out
    assert best_run(nodes, pods) == FULL
    bound = offline_bound(nodes, pods, levels=[10**6], all_resources=True)
    assert bound.points[0].bound_gpu_milli == FULL
    # the GPU-only program leaves the CPU-only pod out
    assert offline_bound(nodes, pods, levels=[10**6]).points[0].bound_gpu_milli == 2 * FULL


def test_a_cpu_only_pod_that_fails_needs_every_node_full_before_it() -> None:
    # two GPU pods fill one node's CPU before the CPU-only pod comes: it fails, both stay;
    # the other order places the CPU-only pod and leaves room for one GPU pod only
    nodes = [node("n", 2, cpu=4000)]
    gpu_first = [pod("a", 1, FULL, cpu=2000), pod("b", 1, FULL, cpu=2000), pod("c", 0, 0, 2000)]
    bound = offline_bound(nodes, gpu_first, levels=[10**6], all_resources=True)
    assert bound.points[0].bound_gpu_milli == 2000
    cpu_first = [gpu_first[2], *gpu_first[:2]]
    assert best_run(nodes, cpu_first) == FULL
    bound = offline_bound(nodes, cpu_first, levels=[10**6], all_resources=True)
    assert bound.points[0].bound_gpu_milli == FULL


def test_two_large_shares_never_share_a_gpu() -> None:
    # capacity alone would allow 1000 of the 1200 thousandths; only one pod fits
    nodes = [node("n", 1)]
    pods = [pod("a", 1, 600), pod("b", 1, 600)]
    assert offline_bound(nodes, pods, levels=[200]).points[0].bound_gpu_milli == 600


def test_three_shares_above_a_third_need_two_gpus() -> None:
    nodes = [node("n", 2)]
    pods = [pod(f"p{i}", 1, 700) for i in range(3)]
    assert offline_bound(nodes, pods, levels=[200]).points[0].bound_gpu_milli == 1400


def test_model_and_size_constraints_keep_pods_off_nodes() -> None:
    nodes = [node("t4", 2, "T4"), node("small", 8, "G2", cpu=4000)]
    pods = [
        pod("wants-g2", 1, FULL, models=frozenset({"G2"}), cpu=6000),  # G2 node too small
        pod("eight", 8, FULL, cpu=1000),  # only the G2 node has 8 GPUs
        pod("half", 1, 500, models=frozenset({"T4"})),
    ]
    result = offline_bound(nodes, pods, levels=[1000])
    assert result.points[0].bound_gpu_milli == 8500


def test_bound_follows_the_arrival_order_and_never_exceeds_arrived_or_capacity() -> None:
    nodes = [node("a", 2), node("b", 2)]
    pods = [pod(f"p{i}", 1, FULL) for i in range(6)]  # 150 % of the capacity
    points = offline_bound(nodes, pods, levels=[0, 20, 50, 75, 100, 130]).points
    assert [p.arrived_gpu_milli for p in points] == [0, 0, 2000, 3000, 4000, 5000]
    assert [p.bound_gpu_milli for p in points] == [0, 0, 2000, 3000, 4000, 4000]
    assert points[-1].bound_percent == 100.0


def test_cpu_only_pods_and_gpu_less_clusters_give_zero() -> None:
    assert (
        offline_bound([node("cpu", 0)], [pod("p", 0, 0)], levels=[100]).points[0].bound_gpu_milli
        == 0
    )
    assert (
        offline_bound([node("g", 1)], [pod("p", 0, 0)], levels=[100]).points[0].bound_gpu_milli == 0
    )


# the per-GPU shares of the openb traces, in thousandths
OPENB_SHARES = (
    *(50, 110, 140, 160, 220, 230, 270, 290, 320, 330, 350, 370, 440, 460, 470, 480),
    *(550, 590, 650, 810, 1000),
)


def fillings(sizes: Sequence[int], room: int, start: int = 0) -> Iterator[list[int]]:
    """Every multiset of ``sizes`` that fits in ``room``."""
    yield []
    for index in range(start, len(sizes)):
        if sizes[index] <= room:
            for rest in fillings(sizes, room - sizes[index], index):
                yield [sizes[index], *rest]


@pytest.mark.parametrize("order", DFF_ORDERS)
def test_dual_feasible_functions_never_overfill_a_gpu(order: int) -> None:
    # every way to fill one GPU with openb shares, or with multiples of 50 thousandths
    for sizes in (OPENB_SHARES, tuple(range(50, 1001, 50))):
        for filling in fillings(sizes, FULL):
            assert sum(dff(share, order) for share in filling) <= FULL + 1e-9, filling


def test_shares_that_leave_a_small_gap_cannot_fill_it_with_larger_pods() -> None:
    # 810 leaves 190: the 470s cannot join it, so two GPUs hold 810 + (470 + 470) at best
    nodes = [node("n", 2)]
    pods = [pod("a", 1, 810), pod("b", 1, 810), pod("c", 1, 470), pod("d", 1, 470)]
    assert best_run(nodes, pods, may_skip=True) == 1750
    assert offline_bound(nodes, pods, levels=[10**6]).points[0].bound_gpu_milli == 1750


def test_gpu_configurations_are_every_filling_nothing_fits_beside() -> None:
    shares = sorted((s for s in OPENB_SHARES if s < FULL), reverse=True)
    found = configurations(shares, limit=10**6)
    assert found is not None
    maximal = {
        tuple(filling.count(share) for share in shares)
        for filling in fillings(shares, FULL)
        if FULL - sum(filling) < min(shares)
    }
    assert len(found) == len(set(found)) == len(maximal)
    assert set(found) == maximal
    assert configurations(shares, limit=100) is None  # too many: the function rows only


def test_configurations_make_one_gpu_exact_where_the_functions_are_not() -> None:
    # 840 + 140 is the best use of the GPU; the function rows alone allow 999
    nodes = [node("n", 1)]
    pods = [pod("a", 1, 140), pod("b", 1, 840), pod("c", 1, 970), pod("d", 1, 300)]
    assert best_run(nodes, pods, may_skip=True) == 980
    assert offline_bound(nodes, pods, levels=[10**6]).points[0].bound_gpu_milli == 980
