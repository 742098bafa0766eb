"""Small hand-made clusters for the policy tests."""

from __future__ import annotations

from wlmap.placement.nodes import Node
from wlmap.placement.packing import ClusterState, Placement, Pod, Policy


def node(name: str, gpus: int, cpu: int = 64_000, model: str = "G2") -> Node:
    return Node(name, cpu_milli=cpu, memory_mib=256_000, gpus=gpus, gpu_model=model)


def pod(cpu: int = 4000, num: int = 1, milli: int = 1000, models: set[str] | None = None) -> Pod:
    return Pod(
        "p",
        cpu_milli=cpu,
        memory_mib=1000,
        num_gpu=num,
        gpu_milli=milli if num else 0,
        gpu_models=frozenset(models) if models else None,
    )


def use(state: ClusterState, index: int, gpu: int, milli: int, *, cpu: int = 0) -> Pod:
    """Occupy ``milli`` of one GPU (and ``cpu``) on a node, as an earlier pod would."""
    taken = Pod("earlier", cpu_milli=cpu, memory_mib=0, num_gpu=1, gpu_milli=milli)
    state.assign(taken, Placement(index, (gpu,)))
    return taken


def fresh(policy: Policy, nodes: list[Node], seed: int = 42) -> ClusterState:
    state = ClusterState.from_nodes(nodes)
    policy.reset(state, [], seed)
    return state


def occupy(policy: Policy, state: ClusterState, index: int, gpu: int, milli: int) -> None:
    """``use``, and tell the policy, as the simulator does after a placement."""
    taken = use(state, index, gpu, milli)
    policy.observe(state, taken, Placement(index, (gpu,)))
