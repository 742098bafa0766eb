"""Placement's front doors: every exported name resolves to what its module defines, a door
costs nothing until a name is used, and no two modules inside placement share a name."""

from __future__ import annotations

import importlib
import json
import pkgutil
import subprocess
import sys
from collections import Counter
from types import ModuleType

import pytest

import wlmap.placement

DOORS = ["nodes", "packing", "gangs", "devices", "feed", "plan"]
LAZY_DOORS = ["packing", "gangs", "devices", "feed"]


def _modules() -> list[str]:
    return [
        info.name
        for info in pkgutil.walk_packages(wlmap.placement.__path__, "wlmap.placement.")
        if not info.ispkg
    ]


@pytest.mark.parametrize("door", DOORS)
def test_every_exported_name_is_the_defining_modules_object_even_after_its_submodules_load(
    door: str,
) -> None:
    package = importlib.import_module(f"wlmap.placement.{door}")
    for name in _modules():
        if name.startswith(f"{package.__name__}."):
            importlib.import_module(name)
    for name in package.__all__:
        value = getattr(package, name)
        assert not isinstance(value, ModuleType), f"{door}.{name} is hidden by a submodule"


@pytest.mark.parametrize("door", LAZY_DOORS)
def test_importing_a_door_loads_none_of_its_modules(door: str) -> None:
    probe = (
        f"import sys, json, wlmap.placement.{door}\n"
        f"print(json.dumps([m for m in sys.modules if m.startswith('wlmap.placement.{door}.')]))"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    )
    assert json.loads(result.stdout) == []


def test_an_unknown_name_is_an_attribute_error() -> None:
    packing = importlib.import_module("wlmap.placement.packing")
    with pytest.raises(AttributeError, match="no_such_name"):
        _ = packing.no_such_name


def test_no_two_modules_inside_placement_share_a_name() -> None:
    names = Counter(m.rsplit(".", 1)[1].lstrip("_") for m in _modules())
    assert [name for name, count in names.items() if count > 1] == []
