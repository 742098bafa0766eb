"""Roles: the components a workload's templates make, their names and instance ids.

Walking from ``.spec`` down to a template, every array or map on the way is a set of
roles: an array's items are named by a name field, a map's entries by their keys (the
keys the samples use become one component each). A template inside a JobSpec shape is
run through Jobs: the Job is a component of its own, the pods its child. A role inside a
role (a list of members inside a list of groups) makes a kind-less component per level.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from wlmap.infer._components import JOB, POD, Component
from wlmap.infer._counts import (
    Count,
    apply_counts,
    count_expression,
    find_counts,
    is_job_spec,
    job_pods_expression,
)
from wlmap.infer._evidence import Evidence, Strength
from wlmap.infer._fragments import FIELDS
from wlmap.infer._ids import identify
from wlmap.infer._named_roles import merge_named_roles
from wlmap.infer._role_parts import (
    Role,
    group_evidence,
    role_word,
    set_template,
    split_group,
    split_shared_count,
)
from wlmap.infer._samples import keys_at, sample_node
from wlmap.infer._schema import ITEMS, VALUES, Node, Path, at, jq_path, show
from wlmap.infer._templates import Template


def plan_roles(
    root_name: str,
    spec: Node,
    templates: Sequence[Template],
    samples: Sequence[Mapping[str, Any]],
) -> list[Component]:
    """The child components for ``templates`` (owners before their children)."""
    planner = _Planner(root_name, spec, samples, templates)
    counts = find_counts(spec)
    if counts.replicas is not None and all(len(t.path) > len(spec.path) + 1 for t in templates):
        # A count on the spec itself while every template sits deeper: the whole set of
        # roles is replicated, so each replica is a kind-less group of them, named a
        # group where the count's description counts groups.
        described = (spec.child(counts.replicas.field) or spec).description
        name = "group" if re.search(r"\bgroups?\b", described, re.IGNORECASE) else "replica"
        group = Component(planner.unique(name), root_name, element=spec.path)
        group.evidence.append(
            Evidence(
                f"component {group.name}",
                "replicas of all roles",
                show(spec.path),
                f"{counts.replicas.field!r} on the spec, no template beside it",
                Strength.GUESS,
            )
        )
        planner.count(group, spec.path, spec, fallback=1)
        planner.components.append(group)
        planner.top = group.name
    for template in templates:
        planner.add(template)
    return merge_named_roles(planner.components, {root_name})


class _Planner:
    def __init__(
        self,
        root_name: str,
        spec: Node,
        samples: Sequence[Mapping[str, Any]],
        templates: Sequence[Template],
    ) -> None:
        self.root_name, self.spec, self.samples = root_name, spec, samples
        self.templates = templates
        self.components: list[Component] = []
        self.top = root_name
        self._groups: dict[Path, Component] = {}
        self._leaders: dict[Path, Component] = {}  # a leader's group its worker joins

    def _node(self, path: Path) -> Node | None:
        """The schema node at ``path``, or one built from the samples where the schema is silent."""
        found = at(self.spec, path)
        return found if found is not None else sample_node(self.samples, path)

    def unique(self, name: str) -> str:
        taken = {c.name for c in self.components} | {self.root_name}
        if name not in taken:
            return name
        n = 2
        while f"{name}{n}" in taken:
            n += 1
        return f"{name}{n}"

    def add(self, template: Template) -> None:
        path = template.path
        if template.shape == "fragments":
            # The role object holds the pod's fields: plan it as the holder of a template.
            self._add_one(template, (*path, FIELDS), False, None)
            return
        job = None
        # A PodTemplateSpec at <x>.spec.template whose <x>.spec is a JobSpec: pods run in Jobs.
        if len(path) >= 3 and path[-2:] == ("spec", "template"):
            job_spec = self._node(path[:-1])
            if job_spec is not None and is_job_spec(job_spec):
                job = path[:-2]
        role_path = job if job is not None else path
        collections = [i for i, step in enumerate(role_path) if step in (ITEMS, VALUES)]
        if collections and role_path[collections[-1]] == VALUES:
            keys = keys_at(self.samples, role_path[: collections[-1]])
            if keys and len(collections) == 1:
                for key in keys:
                    concrete = (
                        *role_path[: collections[-1]],
                        key,
                        *role_path[collections[-1] + 1 :],
                    )
                    self._add_one(template, concrete, job is not None, key)
                return
        self._add_one(template, role_path, job is not None, None)

    def _owner(self, role_path: Path, last: int | None) -> str:
        """The component owning a role: kind-less group components for outer collections."""
        owner = self.top
        steps = [
            i
            for i, s in enumerate(role_path)
            if s in (ITEMS, VALUES) and (last is None or i < last)
        ]
        for i in steps:
            element = role_path[: i + 1]
            if element in self._groups:
                owner = self._groups[element].name
                continue
            node = self._node(element)
            group = Component(self.unique(role_word(role_path[i - 1])), owner)
            group.evidence.append(
                Evidence(
                    f"component {group.name}",
                    "roles inside roles",
                    show(element),
                    "a list or map of roles holding further roles",
                    Strength.SHAPE,
                )
            )
            identify(group, element, node)
            self.count(group, element, node, fallback=1)
            self._groups[element] = group
            self.components.append(group)
            owner = group.name
        return owner

    def count(
        self,
        comp: Component,
        element: Path,
        node: Node | None,
        fallback: int | None,
        holder: Path | None = None,
    ) -> None:
        """Counts of the role: on the object holding the template first, then its element."""
        held = None
        if holder is not None and holder != element and holder[: len(element)] == element:
            held = (holder, self._node(holder))
        apply_counts(comp, element, node, fallback, held)

    def _add_one(self, template: Template, role_path: Path, in_job: bool, key: str | None) -> None:
        """The components of the role at ``role_path``: one, or a group or Job and its pods."""
        collections = [i for i, s in enumerate(role_path) if s in (ITEMS, VALUES)]
        last = collections[-1] if collections else None
        owner = self._owner(role_path, last)
        if last is not None:
            element: Path = role_path[: last + 1]
            word = role_word(role_path[last - 1])
        else:
            element = role_path[:-1]
            own = role_word(role_path[-1])
            word = own if own not in ("template", "pod", "spec", "", FIELDS) else "pod"
            if word == "pod" and len(element) > 1:
                word = role_word(element[-1])
        node = self._node(element)
        role = Role(template, role_path, element, node, last is not None, key)
        counts = find_counts(node) if node is not None and not in_job else None
        if counts is not None and counts.per_replica is not None and counts.replicas is not None:
            self._add_grouped(role, owner, word, counts.per_replica)
        elif in_job:
            self._add_job(role, owner, word)
        else:
            self._add_pods(role, owner, word)

    def _add_pods(self, role: Role, owner: str, word: str) -> None:
        comp = Component(
            self.unique(word), owner, kind=POD, role_key=role.key, element=role.element
        )
        if role.key is not None:
            comp.evidence.append(
                Evidence(
                    f"component {comp.name}",
                    f"map key {role.key!r}",
                    show(role.element[:-1]),
                    "a key the samples use",
                    Strength.SAMPLE,
                )
            )
        if role.listed:
            identify(comp, role.element, role.node)
        holder = role.template.path[:-1] if role.key is None else None
        self.count(comp, role.element, role.node, fallback=1, holder=holder)
        if role.node is not None and holder == role.element and comp.replicas_path is not None:
            self._split(comp, role, role.node, comp.replicas_path)
        self.components.append(comp)
        set_template(comp, role)
        if comp.replicas_path is None and not role.listed:
            comp.replicas_path = "1"
            comp.evidence.append(
                Evidence(
                    "replicasPath",
                    "1",
                    show(role.element),
                    "no count beside the template: one pod",
                    Strength.GUESS,
                )
            )

    def _split(self, comp: Component, role: Role, holder: Node, replicas: str) -> None:
        """One count sizing a single-pod template and its sibling: see split_shared_count."""
        shared = find_counts(holder).replicas
        if shared is None:
            return
        split = split_shared_count(holder, self.templates, shared.field, replicas, role.path[-1])
        if split is not None:
            comp.replicas_path = split[0]
            comp.evidence.append(split[1])

    def _add_grouped(self, role: Role, owner: str, word: str, per_replica: Count) -> None:
        """Replicas of several pods each: the replica is a kind-less group, the pods its
        child; a worker template beside a leader joins the leader's group."""
        per = count_expression(jq_path(role.element), per_replica, 1)
        split = split_group(self.templates, role.path, per) if not role.listed else None
        group = self._leaders.get(role.element) if split is not None else None
        if group is None:
            name = word if word.endswith("Group") else f"{word}Group"
            group = Component(self.unique(name), owner, role_key=role.key)
            group.evidence.append(group_evidence(group.name, role.element, per_replica.field))
            if role.listed:
                identify(group, role.element, role.node)
            self.count(group, role.element, role.node, fallback=1)
            self.components.append(group)
            self._leaders[role.element] = group
            word = word[: -len("Group")] if word.endswith("Group") and len(word) > 5 else word
        comp = Component(self.unique(word), group.name, kind=POD, role_key=role.key)
        comp.instance_id_path = group.instance_id_path
        comp.replicas_path, evidence = split or (per, per_replica.evidence)
        comp.evidence.append(evidence)
        set_template(comp, role)
        self.components.append(comp)

    def _add_job(self, role: Role, owner: str, word: str) -> None:
        """Pods run through Jobs: the Job is a component, the pods its child."""
        job = Component(self.unique(word), owner, kind=JOB, role_key=role.key)
        job.evidence.append(
            Evidence(
                f"component {job.name}",
                "batch/v1 Job",
                show(role.path),
                "the template sits in a JobSpec (parallelism/completions beside it)",
                Strength.SHAPE,
            )
        )
        if role.listed:
            identify(job, role.element, role.node)
        self.count(job, role.element, role.node, fallback=1)
        self.components.append(job)
        pod = Component(self.unique("pod"), job.name, kind=POD, role_key=role.key)
        pod.instance_id_path = job.instance_id_path
        pod.template_path = jq_path((*role.path, "spec", "template"))
        pod.replicas_path = job_pods_expression(jq_path((*role.path, "spec")))
        pod.evidence.append(role.template.evidence)
        pod.evidence.append(
            Evidence(
                "replicasPath",
                "parallelism, at most completions",
                show((*role.path, "spec")),
                "pods per Job by the Job API's rule",
                Strength.SHAPE,
            )
        )
        self.components.append(pod)
