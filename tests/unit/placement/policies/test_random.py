"""Random fit: feasible choices only, all of them reachable, same seed same choices."""

from __future__ import annotations

from tests.unit.placement.policies._cluster import fresh, node, pod, use
from wlmap.placement.packing import Placement
from wlmap.placement.packing.policies.random import RandomPolicy


def draws(seed: int, count: int = 200) -> list[Placement | None]:
    policy = RandomPolicy()
    state = fresh(policy, [node("a", 4), node("b", 4, model="T4"), node("c", 4)], seed=seed)
    use(state, 0, 0, 900)  # a: GPU0 has 100 free: too little for 300
    use(state, 2, 2, 800)  # c: GPU2 has 200 free: too little for 300
    return [policy.place(state, pod(milli=300, models={"G2"})) for _ in range(count)]


def test_only_fitting_nodes_and_gpus_are_drawn_and_all_of_them_are() -> None:
    chosen = {(p.node, p.gpus) for p in draws(42) if p is not None}
    # b is a T4 node: never; a's GPU0 and c's GPU2 lack room: never
    assert chosen == {(0, (1,)), (0, (2,)), (0, (3,)), (2, (0,)), (2, (1,)), (2, (3,))}


def test_seeded() -> None:
    assert draws(7) == draws(7)
    assert draws(7) != draws(8)


def test_nothing_fits() -> None:
    policy = RandomPolicy()
    state = fresh(policy, [node("a", 1)])
    assert policy.place(state, pod(num=2)) is None
