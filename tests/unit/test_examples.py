"""The bundled examples the demo shows are interpreted with the built-in catalog, GPUs counted."""

from __future__ import annotations

from importlib import resources

import yaml

from wlmap.catalog import builtin_registry
from wlmap.workload import interpret


def examples() -> dict[str, dict[str, object]]:
    folder = resources.files("wlmap").joinpath("examples")
    found = {}
    for item in folder.iterdir():
        if item.name.endswith(".yaml"):
            for doc in yaml.safe_load_all(item.read_text(encoding="utf-8")):
                if isinstance(doc, dict):
                    found[item.name] = doc
    return found


def test_every_example_has_a_definition_and_pods() -> None:
    registry = builtin_registry()
    for name, obj in examples().items():
        view = interpret(registry.for_object(obj), obj, strict=True)
        assert view.total_pods > 0, name
        assert any(c.template is not None for c in view.components), name
