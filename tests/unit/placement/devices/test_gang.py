"""Whole gangs get devices: first-fit as the in-tree allocator does it, pod by pod, and
wlmap's planner, which keeps a gang in one NVLink clique and keeps aligned groups whole.
Every cluster here is small enough to work out by hand; each test says how."""

from __future__ import annotations

from collections.abc import Sequence

from tests.unit.placement.devices._cluster import (
    CLIQUE,
    PCIE_ROOT,
    claim_template,
    four_gpu_node,
    state_of,
)
from wlmap.placement.devices import (
    DeviceState,
    GangAllocation,
    GangPlanner,
    PodClaims,
    aligned,
    first_fit_gang,
    read_dra,
)


def gang(name: str, pods: int, gpus: int, *, same_root: bool = True) -> list[PodClaims]:
    template = claim_template(name, gpus, match=PCIE_ROOT if same_root else None)
    claim = read_dra([template]).claims[name]
    return [PodClaims(f"{name}-{i}", (claim,)) for i in range(pods)]


def where(allocation: GangAllocation | None) -> list[tuple[str, list[str]]]:
    assert allocation is not None
    return [(node, [c.device.name for c in choices]) for _, node, choices in allocation.pods]


def planner(state: DeviceState, gang_attributes: Sequence[str] = ()) -> GangPlanner:
    return GangPlanner(state, gang_attributes, (PCIE_ROOT,))


def cluster_with_a_half_used_clique() -> DeviceState:
    # n1 in clique A has gpu-2/3 (pci1) free; n2 in clique B is empty.
    return state_of(four_gpu_node("n1", "A"), four_gpu_node("n2", "B"), taken={"n1": [0, 1]})


def test_first_fit_splits_a_gang_across_cliques() -> None:
    # Worked by hand: pod 0 takes the first node that fits, n1 (gpu-2/3, clique A); n1 is
    # then full, so pod 1 goes to n2 (gpu-0/1, clique B): each pod's claim holds (same PCIe
    # root) but the gang spans two NVLink cliques.
    found = first_fit_gang(gang("tp", 2, 2), cluster_with_a_half_used_clique())
    assert where(found) == [("n1", ["gpu-2", "gpu-3"]), ("n2", ["gpu-0", "gpu-1"])]
    assert found is not None
    assert not aligned(found, [CLIQUE])


def test_wlmap_keeps_the_gang_in_one_clique() -> None:
    # Worked by hand: clique A has 2 free GPUs for a gang of 4, so only clique B is a
    # candidate; both pods go to n2, one per PCIe root.
    found = planner(cluster_with_a_half_used_clique(), [CLIQUE]).plan(gang("tp", 2, 2))
    assert where(found) == [("n2", ["gpu-0", "gpu-1"]), ("n2", ["gpu-2", "gpu-3"])]
    assert found is not None
    assert aligned(found, [CLIQUE])


def test_wlmap_prefers_the_clique_whose_placement_strands_fewest_devices() -> None:
    # Clique A: n1 has 2 free (pci1). Clique B: n2 empty, n3 with 2 free (pci0).
    # A 1-pod gang of 2 GPUs fits n1 (A) exactly, or n3 (B) exactly, or n2 (breaks a whole
    # node). n1 and n3 both break nothing and strand nothing; n1 comes first in slice order.
    state = state_of(
        four_gpu_node("n1", "A"),
        four_gpu_node("n2", "B"),
        four_gpu_node("n3", "B"),
        taken={"n1": [0, 1], "n3": [2, 3]},
    )
    assert where(planner(state, [CLIQUE]).plan(gang("g", 1, 2))) == [("n1", ["gpu-2", "gpu-3"])]


def test_first_fit_breaks_a_whole_node_that_a_later_gang_needs() -> None:
    # n1 is empty; n2 has gpu-0 taken (gpu-1 alone free under pci0, pci1 whole).
    # First-fit puts the 1-GPU pod on n1/gpu-0; the 4-GPU pod then finds 3 free GPUs on
    # each node and fails.
    state = state_of(four_gpu_node("n1"), four_gpu_node("n2"), taken={"n2": [0]})
    assert where(first_fit_gang(gang("one", 1, 1), state)) == [("n1", ["gpu-0"])]
    assert first_fit_gang(gang("four", 1, 4, same_root=False), state) is None


def test_wlmap_fills_the_partly_used_root_and_keeps_the_whole_node() -> None:
    # Same cluster. On n1 the pod would break the whole node and a whole root (cost 1, 1);
    # on n2 gpu-1 completes the partly used pci0 and breaks nothing (cost 0, 0, stranding
    # 0). The 4-GPU pod then gets all of n1.
    state = state_of(four_gpu_node("n1"), four_gpu_node("n2"), taken={"n2": [0]})
    plan = planner(state)
    assert where(plan.plan(gang("one", 1, 1))) == [("n2", ["gpu-1"])]
    assert where(plan.plan(gang("four", 1, 4, same_root=False))) == [
        ("n1", ["gpu-0", "gpu-1", "gpu-2", "gpu-3"])
    ]


def test_a_gang_that_does_not_fit_whole_takes_nothing() -> None:
    # 3 pods of 2 same-root GPUs need 3 free roots; there are 2 (n1's). Pod 0 and 1 would
    # fit, pod 2 not: neither planner keeps the first two.
    for place in (first_fit_gang, lambda pods, s: planner(s).plan(pods)):
        state = state_of(four_gpu_node("n1"), four_gpu_node("n2"), taken={"n2": [0, 2]})
        before = set(state.allocated)
        assert place(gang("big", 3, 2), state) is None
        assert state.allocated == before


def test_wlmap_does_not_split_a_gang_that_fits_only_across_cliques() -> None:
    # 2 free GPUs in each clique, a gang of 4: first-fit places it split, wlmap refuses.
    def fresh() -> DeviceState:
        return state_of(
            four_gpu_node("n1", "A"), four_gpu_node("n2", "B"), taken={"n1": [0, 1], "n2": [0, 1]}
        )

    split = first_fit_gang(gang("tp", 2, 2), fresh())
    assert split is not None
    assert not aligned(split, [CLIQUE])
    assert planner(fresh(), [CLIQUE]).plan(gang("tp", 2, 2)) is None


def test_without_scoring_the_planner_takes_the_first_fit_inside_a_clique() -> None:
    # The cluster of the two tests above: unscored, the 1-GPU pod goes to n1/gpu-0 as with
    # first-fit, and the 4-GPU pod no longer fits.
    state = state_of(four_gpu_node("n1"), four_gpu_node("n2"), taken={"n2": [0]})
    plan = GangPlanner(state, [CLIQUE], (PCIE_ROOT,), score=False)
    assert where(plan.plan(gang("one", 1, 1))) == [("n1", ["gpu-0"])]
    assert plan.plan(gang("four", 1, 4, same_root=False)) is None
