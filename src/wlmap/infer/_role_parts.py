"""One role of a workload: where it sits, what its field names it, where its pods are read."""

from __future__ import annotations

import re
from dataclasses import dataclass

from wlmap.infer._components import Component
from wlmap.infer._schema import Node, Path, jq_path
from wlmap.infer._templates import Template

_SUFFIXES = re.compile(r"(GroupSpecs?|ReplicaSpecs?|PodTemplates?|Templates?|Specs?|Config)$")


def role_word(step: str) -> str:
    """The role a field names: ``workerGroupSpecs`` -> ``worker``, ``tasks`` -> ``task``."""
    word = _SUFFIXES.sub("", step) or step
    if word.endswith("s") and len(word) > 3 and not word.endswith("ss"):
        word = word[:-1]
    return word[:1].lower() + word[1:]


@dataclass(frozen=True)
class Role:
    """Where one role sits: its template, its path, the element holding it."""

    template: Template
    path: Path
    element: Path
    node: Node | None
    listed: bool
    key: str | None


def set_template(comp: Component, role: Role) -> None:
    path = (
        role.path if role.key is not None else (*role.path, *role.template.path[len(role.path) :])
    )
    if role.template.shape == "fragments":
        prefix = jq_path(role.element)
        comp.fragments = {
            k: prefix + v if v.startswith(".") and prefix != "." else f"{prefix} | {v}"
            for k, v in (role.template.fragments or {}).items()
        }
    elif role.template.shape == "template":
        comp.template_path = jq_path(path)
    else:
        comp.pod_spec_path = jq_path(path)
    comp.evidence.append(role.template.evidence)
