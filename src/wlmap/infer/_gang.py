"""Gangs: one pod group for a multi-pod job, its members grouped by the workload's label."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from wlmap.definitions.status import GenericStatus
from wlmap.infer._components import Component
from wlmap.infer._evidence import Evidence, Strength
from wlmap.infer._vocabulary import words


def plan_gang(
    root: str,
    components: Sequence[Component],
    states: Sequence[GenericStatus],
    workload_label: str | None,
    kind: str = "",
) -> tuple[dict[str, Any] | None, Evidence | None]:
    """``gangScheduling`` for a job with more than one pod, or None.

    A job is a workload that can complete; more than one pod means several pod
    components or a count other than one. Pods of a job start together or not at all,
    so the whole workload is one group (no per-role subgroups: a role whose minimum is
    zero cannot be a subgroup). Its pods are grouped by ``workload_label`` where the
    pods showed it, else by a label named after ``kind`` (see _kind_label).
    """
    pods = [c for c in components if c.kind is not None and c.kind[2] == "Pod"]
    multi = len(pods) > 1 or any(
        (c.replicas_path or "1") != "1" or c.instance_id_path for c in components
    )
    if GenericStatus.COMPLETED not in states or not multi:
        return None, None
    member: dict[str, Any] = {"componentName": root}
    reason = "the workload can complete and runs more than one pod"
    if workload_label is not None:
        member["groupByKeyPaths"] = [f'.metadata.labels["{workload_label}"]']
        reason += f"; its pods share the label {workload_label}"
    elif kind:
        names = _kind_names(kind)
        member["groupByKeyPaths"] = [_kind_label(names)]
        reason += f"; its pods grouped by a label named {' or '.join(names)} (-name)"
    # Both formats: the legacy named groups and the one group of the v2 format.
    gang: dict[str, Any] = {
        "podGroups": [{"name": root, "members": [member]}],
        "podGroup": {"name": root},
    }
    return gang, Evidence(
        "gangScheduling", f"podGroup {root}", "components", reason, Strength.GUESS
    )


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
    tries = [
        "[.metadata.labels // {} | to_entries[]"
        f' | select(.key | split("/") | last | ascii_downcase | test("^{n}(-name)?$"))'
        " | .value] | first"
        for n in names
    ]
    return " // ".join(f"({t})" for t in tries)
