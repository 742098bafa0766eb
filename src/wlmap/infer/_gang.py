"""Gangs: one pod group for a multi-pod job, its members grouped by the workload's label.

A kind whose own description (or its spec's, or that of the part of the spec holding
every template) speaks of gangs is one by design, job or not: Grove's PodCliqueSet "is a
set of PodGangs", one per replica. There each replica of the count on the spec is a gang.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from wlmap.definitions.status import GenericStatus
from wlmap.infer._components import Component
from wlmap.infer._evidence import Evidence, Strength
from wlmap.infer._schema import Node, Path, show
from wlmap.infer._selectors import label_value
from wlmap.infer._vocabulary import words

_GANG_WORDS = frozenset({"gang", "gangs"})


def gang_description(schema: Node, spec: Node, templates: Sequence[Path]) -> Node | None:
    """The first of the kind's root, its spec, and the spec field above every template
    whose description speaks of gangs (a word ``gang``, ``PodGangs``)."""
    nodes = [schema, spec]
    below = {t[len(spec.path)] for t in templates if len(t) > len(spec.path) + 1}
    if len(below) == 1 and (holder := spec.child(below.pop())) is not None:
        nodes.append(holder)
    return next((n for n in nodes if _GANG_WORDS.intersection(words(n.description))), None)


def plan_gang(
    root: str,
    components: Sequence[Component],
    states: Sequence[GenericStatus],
    workload_label: str | None,
    kind: str = "",
    described: Node | None = None,
    replica_label: str | None = None,
) -> tuple[dict[str, Any] | None, Evidence | None]:
    """``gangScheduling`` for a job with more than one pod, or None.

    A job is a workload that can complete; more than one pod means several pod
    components or a count other than one. Pods of a job start together or not at all,
    so the whole workload is one group (no per-role subgroups: a role whose minimum is
    zero cannot be a subgroup). Its pods are grouped by ``workload_label`` where the
    pods showed it, else by a label named after ``kind`` (see _kind_label). A kind
    ``described`` as gangs is one whether it can complete or not, and where a count on
    the spec replicates every role, each replica is a gang of its own (told apart by
    ``replica_label`` where the pods show one).
    """
    pods = [c for c in components if c.kind is not None and c.kind[2] == "Pod"]
    multi = len(pods) > 1 or any(
        (c.replicas_path or "1") != "1" or c.instance_id_path for c in components
    )
    if not multi or (described is None and GenericStatus.COMPLETED not in states):
        return None, None
    # The kind-less component the spec's own count makes (see _roles.plan_roles).
    replica = next(
        (c for c in components if c.owner == root and c.kind is None and c.element == ("spec",)),
        None,
    )
    name = replica.name if described is not None and replica is not None else root
    member: dict[str, Any] = {"componentName": name}
    if described is not None:
        where = show(described.path) if described.path else "the kind's description"
        reason = f'{where} speaks of gangs: "{described.description[:80]}"'
    else:
        reason = "the workload can complete and runs more than one pod"
    keys = []
    if workload_label is not None:
        keys.append(f'.metadata.labels["{workload_label}"]')
        reason += f"; its pods share the label {workload_label}"
    elif kind:
        names = _kind_names(kind)
        keys.append(_kind_label(names))
        reason += f"; its pods grouped by a label named {' or '.join(names)} (-name)"
    if name != root and replica_label is not None:
        keys.append(f'.metadata.labels["{replica_label}"]')
        reason += f"; each replica's pods carry their index in {replica_label}"
    if keys:
        member["groupByKeyPaths"] = keys
    # Both formats: the legacy named groups and the one group of the v2 format.
    gang: dict[str, Any] = {
        "podGroups": [{"name": name, "members": [member]}],
        "podGroup": {"name": root},
    }
    choice = f"podGroup {root}" if name == root else f"podGroup per {name}"
    return gang, Evidence("gangScheduling", choice, "components", reason, Strength.GUESS)


def _kind_names(kind: str) -> list[str]:
    """The kind in lower case, then its last word (``MPIJob``: mpijob, job)."""
    last = words(kind)[-1] if words(kind) else ""
    return list(dict.fromkeys(n for n in (kind.lower(), last) if n))


def _kind_label(names: list[str]) -> str:
    """jq of the value of the pod label named after the workload's kind.

    Controllers label every pod of a workload with its name under a key named after the
    kind (``volcano.sh/job-name``, ``training.kubeflow.org/job-name``,
    ``jobset.sigs.k8s.io/jobset-name``); the whole kind's name is tried before its last
    word, which a child's label (a batch/v1 Job's ``job-name``) can share.
    """
    tries = [label_value(f'test("^{n}(-name)?$")') for n in names]
    return " // ".join(f"({t})" for t in tries)
