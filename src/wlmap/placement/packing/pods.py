"""The packing vocabulary: a pod's resource request, and where a pod went.

These are plain frozen records. Their invariants (non-negative requests, GPU shares in
thousandths, whole GPUs for multi-GPU pods) are checked where data enters, by the readers,
so the simulator and the policies can trust them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

MILLI = 1000
"""One whole GPU in thousandths."""

PodClass = Literal["cpu-only", "shared", "one-gpu", "multi-gpu"]
POD_CLASSES: tuple[PodClass, ...] = ("cpu-only", "shared", "one-gpu", "multi-gpu")


@dataclass(frozen=True, slots=True)
class Pod:
    """What one pod asks for.

    Attributes:
        name: pod name (a label only; two pods may share it after sampling).
        cpu_milli: CPU request in millicores.
        memory_mib: memory request in MiB.
        num_gpu: GPUs asked for; 0 for CPU-only pods.
        gpu_milli: share of each GPU in thousandths, 1..1000; 1000 for whole GPUs; 0 when
            ``num_gpu`` is 0.
        gpu_models: the GPU models the pod accepts; None accepts any model.
        origin: where the pod came from, e.g. ``"JobSet default/train component worker"``.
    """

    name: str
    cpu_milli: int
    memory_mib: int
    num_gpu: int
    gpu_milli: int
    gpu_models: frozenset[str] | None = None
    origin: str | None = None

    @property
    def gpu_demand_milli(self) -> int:
        """Total GPU request in thousandths: ``num_gpu * gpu_milli``."""
        return self.num_gpu * self.gpu_milli

    @property
    def shared(self) -> bool:
        """True for a pod that takes a fraction of one GPU."""
        return self.num_gpu == 1 and self.gpu_milli < MILLI

    @property
    def pod_class(self) -> PodClass:
        """The class failed pods are counted by: cpu-only, shared, one-gpu or multi-gpu."""
        if self.num_gpu == 0:
            return "cpu-only"
        if self.shared:
            return "shared"
        return "one-gpu" if self.num_gpu == 1 else "multi-gpu"


@dataclass(frozen=True, slots=True)
class Placement:
    """Where a pod goes.

    Attributes:
        node: index into ``ClusterState.nodes``.
        gpus: GPU indices inside the node; ``()`` for CPU-only pods.
    """

    node: int
    gpus: tuple[int, ...] = ()


def request_problem(pod: Pod) -> str | None:
    """What is wrong with a pod's request, or None when it keeps the invariants."""
    for name in ("cpu_milli", "memory_mib", "num_gpu", "gpu_milli"):
        if getattr(pod, name) < 0:
            return f"{name} must be >= 0, got {getattr(pod, name)}"
    if pod.gpu_milli > MILLI:
        return f"gpu_milli must be <= {MILLI} (one whole GPU), got {pod.gpu_milli}"
    if (pod.num_gpu == 0) != (pod.gpu_milli == 0):
        return (
            f"num_gpu and gpu_milli must both be 0 or both be > 0, "
            f"got num_gpu={pod.num_gpu} gpu_milli={pod.gpu_milli}"
        )
    if pod.num_gpu > 1 and pod.gpu_milli != MILLI:
        return f"a pod with num_gpu > 1 takes whole GPUs: gpu_milli must be {MILLI}, got {pod.gpu_milli}"
    return None


__all__ = ["MILLI", "POD_CLASSES", "Placement", "Pod", "PodClass", "request_problem"]
