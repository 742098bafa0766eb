"""BestFit on hand-made clusters."""

from __future__ import annotations

from tests.unit.placement.policies._cluster import fresh, node, pod, use
from wlmap.placement.packing import Placement
from wlmap.placement.packing.policies.bestfit import BestFitPolicy


def test_tightest_node_then_tightest_gpu() -> None:
    policy = BestFitPolicy()
    state = fresh(policy, [node("a", 8, cpu=32_000), node("b", 2, cpu=8000)])
    use(state, 1, 0, 600)  # b: GPU0 has 400 free, GPU1 1000: 1400 free in all
    # a: 0.5*(32000-4000)/128000 + 0.5*(8000-300)/8000 = 0.109375 + 0.48125 -> int(40.94) = 40
    # b: 0.5*(8000-4000)/128000 + 0.5*(1400-300)/8000 = 0.015625 + 0.06875 -> int(91.56) = 91
    # b wins; inside b the tightest GPU with room for 300 is GPU0 (400 free).
    assert policy.place(state, pod(cpu=4000, milli=300)) == Placement(1, (0,))


def test_whole_gpu_takes_the_first_free_gpu() -> None:
    policy = BestFitPolicy()
    state = fresh(policy, [node("a", 4, cpu=8000)])
    use(state, 0, 0, 100)  # GPU0 partly used: the whole-GPU pod skips it
    assert policy.place(state, pod(cpu=1000, num=2)) == Placement(0, (1, 2))


def test_nothing_fits() -> None:
    policy = BestFitPolicy()
    state = fresh(policy, [node("a", 2)])
    assert policy.place(state, pod(num=4)) is None
    assert policy.place(state, pod(models={"T4"})) is None


def test_a_node_larger_than_the_normalisation_still_takes_pods() -> None:
    policy = BestFitPolicy()
    state = fresh(policy, [node("dgx", 8, cpu=256_000)])
    # 0.5*(256000-4000)/128000 + 0.5*(8000-1000)/8000 = 0.984375 + 0.4375 -> score below 0,
    # yet the only node fits and must be chosen
    assert policy.place(state, pod(cpu=4000, num=1)) == Placement(0, (0,))
