"""Front doors that load a name's module on first use (PEP 562).

The engines' front doors list every public name, but most of them need numpy, OR-Tools or
the CEL engine; importing the door must stay cheap for commands that never place anything
(start-up cost), and a command must reach only the optional dependencies its names need.
Each door maps its names to the modules that define them and resolves a name through
:func:`attribute` from its module ``__getattr__``.

A lazy door exports no name equal to one of its submodules: importing the submodule would
set the package attribute to the module and hide the name.
"""

from __future__ import annotations

from collections.abc import Mapping
from importlib import import_module
from typing import Any

__all__ = ["attribute"]


def attribute(package: str, where: Mapping[str, str], name: str) -> Any:
    """The value of ``name`` exported by ``package``, importing its module now.

    Args:
        package: the door's dotted name, for the error message.
        where: exported name to ``"module"`` or ``"module:attribute"`` (a name exported under
            another name than its module's).
        name: the attribute asked for.

    Raises:
        AttributeError: ``name`` is not exported by ``package``.
    """
    place = where.get(name)
    if place is None:
        raise AttributeError(f"module {package!r} has no attribute {name!r}")
    module, _, inner = place.partition(":")
    return getattr(import_module(module), inner or name)
