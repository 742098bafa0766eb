"""Applying a definition to a workload object: structure, pods, resources, status, gangs.

Pure: nothing here reads files or talks to a cluster.
"""

from wlmap.workload.compiled import CompiledDefinition, compile_definition, prepare
from wlmap.workload.gangs import GangGroup
from wlmap.workload.interpret import interpret
from wlmap.workload.patches import Patch, PodChanges, patch_pods
from wlmap.workload.pods import PodPlacement
from wlmap.workload.references import ReferenceRequest, reference_requests
from wlmap.workload.resources import PodResources, pod_resources
from wlmap.workload.status import Evidence, MatcherResult, StatusReport
from wlmap.workload.structure import MAX_COUNT
from wlmap.workload.suspend import SuspendState, suspend_patch, suspend_state
from wlmap.workload.view import ComponentView, WorkloadView

__all__ = [
    "MAX_COUNT",
    "CompiledDefinition",
    "ComponentView",
    "Evidence",
    "GangGroup",
    "MatcherResult",
    "Patch",
    "PodChanges",
    "PodPlacement",
    "PodResources",
    "ReferenceRequest",
    "StatusReport",
    "SuspendState",
    "WorkloadView",
    "compile_definition",
    "interpret",
    "patch_pods",
    "pod_resources",
    "prepare",
    "reference_requests",
    "suspend_patch",
    "suspend_state",
]
