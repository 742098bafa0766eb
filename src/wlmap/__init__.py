"""wlmap: one structural view of any AI workload on Kubernetes, from declarative definitions.

Typical use::

    import wlmap

    registry = wlmap.builtin_registry()                 # the built-in catalog
    registry.extend(wlmap.load_definitions("my-defs/"), "my-defs/")  # optional
    definition = registry.for_object(obj)               # by the object's apiVersion/kind
    view = wlmap.interpret(definition, obj, pods=pods)  # pods are optional
    print(view.to_dict())                               # the JSON contract
"""

from wlmap.catalog import builtin_definitions, builtin_registry
from wlmap.definitions import Definition, load_definitions, parse_definitions, validate_definition
from wlmap.definitions.registry import Registry
from wlmap.errors import (
    ClusterError,
    DefinitionError,
    ExpressionError,
    LimitExceededError,
    ManifestError,
    NoDefinitionError,
    Problem,
    WlmapError,
    WorkloadNotFoundError,
    WorkloadShapeError,
    WriteBackError,
)
from wlmap.workload import (
    PodChanges,
    WorkloadView,
    interpret,
    patch_pods,
    prepare,
    suspend_patch,
)

__all__ = [
    "ClusterError",
    "Definition",
    "DefinitionError",
    "ExpressionError",
    "LimitExceededError",
    "ManifestError",
    "NoDefinitionError",
    "PodChanges",
    "Problem",
    "Registry",
    "WlmapError",
    "WorkloadNotFoundError",
    "WorkloadShapeError",
    "WorkloadView",
    "WriteBackError",
    "builtin_definitions",
    "builtin_registry",
    "interpret",
    "load_definitions",
    "parse_definitions",
    "patch_pods",
    "prepare",
    "suspend_patch",
    "validate_definition",
]
