"""A kind that is one pod: one template and no count anywhere in its spec."""

from __future__ import annotations

from typing import Any

from wlmap.definitions import definition_from_mapping
from wlmap.infer import infer
from wlmap.workload import interpret

from ._crds import POD_TEMPLATE, crd, obj, template
from ._views import valid


def _view(source: dict[str, Any], spec: dict[str, Any]) -> list[tuple[str, int | None, int]]:
    definition = definition_from_mapping(infer(source).definition, "draft")
    view = interpret(definition, obj(spec)).to_dict()
    return [(c["name"], c.get("replicas"), c["pods"]) for c in view["components"]]


def test_one_uncounted_template_is_the_workload_itself() -> None:
    # A notebook server: the workload is its one pod, shown as one component.
    source = crd({"type": "object", "properties": {"template": POD_TEMPLATE}}, kind="Notebook")
    valid(infer(source), source)
    assert _view(source, {"template": template()}) == [("notebook", 1, 1)]


def test_a_count_keeps_the_pods_a_component_of_their_own() -> None:
    counted = {
        "type": "object",
        "properties": {"replicas": {"type": "integer"}, "template": POD_TEMPLATE},
    }
    source = crd(counted, kind="Notebook")
    assert _view(source, {"replicas": 2, "template": template()})[1:] == [("pod", 2, 2)]


def test_two_uncounted_templates_stay_two_components() -> None:
    two = {"type": "object", "properties": {"head": POD_TEMPLATE, "sidecar": POD_TEMPLATE}}
    source = crd(two, kind="Notebook")
    seen = _view(source, {"head": template(), "sidecar": template()})
    assert [name for name, _, _ in seen] == ["notebook", "head", "sidecar"]
