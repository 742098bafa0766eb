"""The tests' first-fit on the seven-node cluster: the choices the hand-worked cases rely on."""

from __future__ import annotations

from wlmap.placement.gangs import FreeCapacity, Gang

from ._cluster import cluster
from ._firstfit import TopologyFirstFit

FIT = TopologyFirstFit()


def test_first_fit_takes_the_first_rack_that_holds_the_gang_then_widens() -> None:
    capacity = FreeCapacity(cluster())
    capacity.take(0, 4)  # n0 full: rack r1 keeps 8 GPUs on n1 and n2
    three = Gang("three", 3, 4, preferred_level=1)
    # rack r1 holds 2 pods of 4 GPUs, r2 2, r3 2: none holds 3; block b1 holds 4: n1, n2, n3
    placed = FIT.place(capacity, three)
    assert placed is not None
    assert placed.nodes == ((1, 1), (2, 1), (3, 1))
    assert placed.reason == "first fit in b1"
    # required rack: no rack holds 3 pods, and the gang must not spread
    assert FIT.place(capacity, Gang("tight", 3, 4, required_level=1)) is None
    # no level at all: first rack with room for a single pod is r1 (n1)
    single = FIT.place(capacity, Gang("one", 1, 2))
    assert single is not None and single.nodes == ((1, 1),)


def test_first_fit_keeps_slices_whole_in_their_domain() -> None:
    capacity = FreeCapacity(cluster())
    capacity.take(0, 4)
    capacity.take(3, 2)
    # 4 pods of 2 GPUs in slices of 2 per rack, all in one block: r1 has n1+n2 (4 pods, 2
    # slices) so both slices go there.
    sliced = Gang("s", 4, 2, required_level=0, slice_size=2, slice_level=1)
    placed = FIT.place(capacity, sliced)
    assert placed is not None
    assert placed.nodes == ((1, 2), (2, 2))
    # 6 pods: r1 gives 2 slices, r2 (n3 2 free + n4 4 free = 3 pods) gives 1 whole slice
    placed = FIT.place(capacity, Gang("s6", 6, 2, required_level=0, slice_size=2, slice_level=1))
    assert placed is not None
    assert placed.nodes == ((1, 2), (2, 2), (3, 1), (4, 1))
