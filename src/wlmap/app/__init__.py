"""The use cases every front end shares: the definitions in use, reading workloads (from
files, or from a live cluster), and the placement runs (``simulate``, ``simulate gangs``, ``simulate dra``, ``plan``).

The command line, the operator and the benchmarks call these; a new front end (a metrics
exporter, a web page, an export) calls them too and needs no orchestration of its own.
Each use case takes its inputs, returns data (rows, items, decisions) and hands warnings
to a callback or returns them; rendering stays with the front end.

Layer: above :mod:`wlmap.sources`, :mod:`wlmap.views` and :mod:`wlmap.placement`, below
:mod:`wlmap.cli` and :mod:`wlmap.operator`. The names below are imported on first use
(PEP 562), so importing the package loads neither the catalog nor the placement engine.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from wlmap.app.definitions import Definitions, DefinitionSet, definitions_in_use
    from wlmap.app.live import Connected, Live, LiveRead, Request
    from wlmap.app.types import resolve_type
    from wlmap.app.workloads import (
        Listing,
        Reading,
        Warn,
        Workloads,
        uncovered_warning,
        view_warnings,
    )

# Where each public name lives.
_HOMES = {
    "DefinitionSet": "wlmap.app.definitions",
    "Definitions": "wlmap.app.definitions",
    "definitions_in_use": "wlmap.app.definitions",
    **dict.fromkeys(("Connected", "Live", "LiveRead", "Request"), "wlmap.app.live"),
    "resolve_type": "wlmap.app.types",
    **dict.fromkeys(
        ("Listing", "Reading", "Warn", "Workloads", "uncovered_warning", "view_warnings"),
        "wlmap.app.workloads",
    ),
}

__all__ = [
    "Connected",
    "DefinitionSet",
    "Definitions",
    "Listing",
    "Live",
    "LiveRead",
    "Reading",
    "Request",
    "Warn",
    "Workloads",
    "definitions_in_use",
    "resolve_type",
    "uncovered_warning",
    "view_warnings",
]


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(home), name)
    globals()[name] = value
    return value
