"""One role of a workload: where it sits, what its field names it, where its pods are read."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from wlmap.infer._components import Component
from wlmap.infer._evidence import Evidence, Strength
from wlmap.infer._schema import Node, Path, jq_path, show
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


# Roles that are one pod by their name, wherever a count beside them says more.
_SINGLE = re.compile(r"^(leader|head|master|launcher|driver|chief|coordinator)$", re.IGNORECASE)


def split_shared_count(
    holder: Node, templates: Sequence[Template], count_field: str, replicas: str, step: str
) -> tuple[str, Evidence] | None:
    """The count of the template at ``step`` when one count of ``holder`` sizes two
    sibling templates, one of them named as a single pod (``leaderTemplate`` beside
    ``workerTemplate`` under a ``size``) and the count's description says it counts them
    together (``total``, or the single role's name): the single role is one pod, the
    other the rest. None when that does not hold."""
    siblings = [t.path[-1] for t in templates if t.path[:-1] == holder.path]
    single = [s for s in siblings if _SINGLE.match(role_word(s))]
    if len(siblings) != 2 or len(single) != 1:
        return None
    described = (holder.child(count_field) or holder).description.lower()
    if "total" not in described and role_word(single[0]).lower() not in described:
        return None
    where = show((*holder.path, count_field))
    reason = f"{count_field!r} counts both templates together; {single[0]!r} names one pod"
    if step == single[0]:
        return "1", Evidence("replicasPath", "1", where, reason, Strength.GUESS)
    rest = f"({replicas}) - 1"
    return rest, Evidence("replicasPath", rest, where, reason, Strength.GUESS)


def split_group(
    templates: Sequence[Template], role_path: Path, per_replica: str
) -> tuple[str, Evidence] | None:
    """The pods of the template at ``role_path`` in each replica group when it has one
    sibling template and one of the two is named ``worker``: the worker template runs
    all the group's pods but one, the other (a leader by its place) one. None otherwise."""
    holder, step = role_path[:-1], role_path[-1]
    siblings = [t.path[-1] for t in templates if t.path[:-1] == holder]
    workers = [s for s in siblings if role_word(s).lower() == "worker"]
    if len(siblings) != 2 or len(workers) != 1:
        return None
    where = show(role_path)
    reason = f"{workers[0]!r} beside one other template in a group: that one is its leader"
    if step == workers[0]:
        rest = f"({per_replica}) - 1"
        return rest, Evidence("replicasPath", rest, where, reason, Strength.GUESS)
    return "1", Evidence("replicasPath", "1", where, reason, Strength.GUESS)


def group_evidence(name: str, element: Path, per_replica: str) -> Evidence:
    """Why a role's replicas are groups: a count of pods in each."""
    reason = f"{per_replica!r} pods in each replica"
    return Evidence(f"component {name}", "replica groups", show(element), reason, Strength.SHAPE)
