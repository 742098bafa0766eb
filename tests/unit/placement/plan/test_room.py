"""The pods of a gang each domain can take, against a count made node by node; and the
slice rule worked into a reason."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.unit.placement.plan.inputs import gpu_job
from tests.unit.placement.plan.test_planner import plan
from wlmap.placement.gangs import FreeCapacity, Gang, build_topology
from wlmap.placement.nodes import Node
from wlmap.placement.plan import CLUSTER, domain_room

LEVELS = ("block", "rack")


@st.composite
def clusters(draw: st.DrawFn) -> tuple[FreeCapacity, list[tuple[str, str, int]]]:
    nodes, free = [], []
    for block in ("b1", "b2"):
        for rack in ("r1", "r2", "r3")[: draw(st.integers(1, 3))]:
            for index in range(draw(st.integers(1, 3))):
                gpus = draw(st.sampled_from([4, 8]))
                name = f"{block}-{rack}-{index}"
                labels = {"block": block, "rack": rack}
                nodes.append(Node(name, 1000, 1024, gpus, "gpu", labels))
                free.append((block, rack, draw(st.integers(0, gpus))))
    capacity = FreeCapacity(build_topology(LEVELS, nodes))
    for index, (_, _, left) in enumerate(free):
        capacity.take(index, int(capacity.topology.gpus[index]) - left)
    return capacity, free


@settings(max_examples=60, deadline=None)
@given(clusters(), st.sampled_from([1, 2, 3, 4, 8]), st.sampled_from([0, 2, 3]))
def test_room_per_domain_matches_a_node_by_node_count(
    cluster: tuple[FreeCapacity, list[tuple[str, str, int]]], per_pod: int, slice_size: int
) -> None:
    capacity, free = cluster
    topology = capacity.topology
    slice_level = 2 if slice_size else None  # slices of pods on one node
    gang = Gang("g", pods=6, gpus_per_pod=per_pod, slice_size=slice_size, slice_level=slice_level)

    def pods_on(left: int) -> int:
        fits = left // per_pod
        return fits - fits % slice_size if slice_size else fits

    for level, key in ((0, 1), (1, 2)):
        room = domain_room(capacity, gang, level)
        for domain, values in enumerate(topology.domain_values[level]):
            expected = sum(pods_on(left) for *path, left in free if tuple(path[:key]) == values)
            assert int(room[domain]) == expected
    assert int(domain_room(capacity, gang, CLUSTER)[0]) == sum(pods_on(f[2]) for f in free)


def test_a_slice_that_fits_no_node_is_named_in_the_reason() -> None:
    job = gpu_job(4, 4)
    annotations = job["spec"]["template"]["metadata"]["annotations"]
    annotations["kueue.x-k8s.io/podset-slice-required-topology"] = "kubernetes.io/hostname"
    annotations["kueue.x-k8s.io/podset-slice-size"] = "4"
    (result,) = plan(job)
    assert result.shortfall is not None
    # 4 pods of 4 GPUs on one node: no 8-GPU node can take a slice, even empty
    assert result.shortfall.text == (
        "needs 16 GPUs (4 pods x 4) in one rack (required level "
        "cloud.provider.com/topology-rack), in slices of 4 pods per node; no rack could hold "
        "it even with every GPU free (the roomiest takes 0 pods of 4)"
    )
