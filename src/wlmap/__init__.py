"""wlmap: one structural view of any AI workload on Kubernetes, from declarative definitions.

Typical use::

    import wlmap

    registry = wlmap.builtin_registry()                 # the built-in catalog
    registry.extend(wlmap.load_definitions("my-defs/"), "my-defs/")  # optional
    definition = registry.for_object(obj)               # by the object's apiVersion/kind
    view = wlmap.interpret(definition, obj, pods=pods)  # pods are optional
    print(view.to_dict())                               # the JSON contract

The names below are imported on first use (PEP 562), so ``import wlmap`` and the
command line start without loading the models, the jq engine or the catalog.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from wlmap.catalog import builtin_definitions, builtin_registry
    from wlmap.definitions import (
        Definition,
        load_definitions,
        parse_definitions,
        validate_definition,
    )
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
    from wlmap.workload import PodChanges, WorkloadView, patch_pods, prepare, suspend_patch
    from wlmap.workload.interpret import interpret

# Where each public name lives.
_HOMES = {
    "builtin_definitions": "wlmap.catalog",
    "builtin_registry": "wlmap.catalog",
    "Definition": "wlmap.definitions",
    "load_definitions": "wlmap.definitions",
    "parse_definitions": "wlmap.definitions",
    "validate_definition": "wlmap.definitions",
    "Registry": "wlmap.definitions.registry",
    **dict.fromkeys(
        (
            "ClusterError",
            "DefinitionError",
            "ExpressionError",
            "LimitExceededError",
            "ManifestError",
            "NoDefinitionError",
            "Problem",
            "WlmapError",
            "WorkloadNotFoundError",
            "WorkloadShapeError",
            "WriteBackError",
        ),
        "wlmap.errors",
    ),
    **dict.fromkeys(
        ("PodChanges", "WorkloadView", "interpret", "patch_pods", "prepare", "suspend_patch"),
        "wlmap.workload",
    ),
}

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


if not TYPE_CHECKING:  # type checkers see the imports above; unknown names stay errors

    def __getattr__(name: str) -> Any:
        home = _HOMES.get(name)
        if home is None:
            raise AttributeError(f"module 'wlmap' has no attribute {name!r}")
        value = getattr(import_module(home), name)
        globals()[name] = value  # later lookups skip this function
        return value

    def __dir__() -> list[str]:
        return sorted({*globals(), *__all__})
