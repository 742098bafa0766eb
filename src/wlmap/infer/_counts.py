"""Counts beside a template: which integer fields say how many replicas, at least, at most.

A count is an integer property of the object holding the template (the role). Its name
or its description decides which count it is: ``replicas``, ``size``, ``instances``,
"number of replicas" make the desired count; a ``min``/``max`` prefix on such a name the
bounds. A schema default becomes the fallback of the jq expression, else a default the
description states ("If unspecified, defaults to 1.").
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from wlmap.infer._evidence import Evidence, Strength
from wlmap.infer._schema import Node, Path, jq_path, show

if TYPE_CHECKING:
    from wlmap.infer._components import Component

_COUNT_NOUN = r"(replicas?|size|count|instances|workers|nodes|pods|available)"
_DESIRED = re.compile(rf"^(num(ber)?(of)?)?{_COUNT_NOUN}$", re.IGNORECASE)
_MIN = re.compile(rf"^min(imum)?{_COUNT_NOUN}$", re.IGNORECASE)
_MAX = re.compile(rf"^max(imum)?{_COUNT_NOUN}$", re.IGNORECASE)
# Pods in each replica (a multi-host replica): each replica is then a group of pods.
_PER_REPLICA = re.compile(r"^(num(ber)?(of)?)?(hosts|(pods|hosts|nodes)per(replica|group))$", re.I)
# "If unspecified, defaults to 1.", "Default to 1": a default the schema does not declare.
_DESCRIBED_DEFAULT = re.compile(r"\bdefaults? (?:to|is|value is) (\d+)\b", re.IGNORECASE)
_DESIRED_WORDS = re.compile(
    r"\b(desired )?number of (desired )?(replicas|pods|instances|workers|nodes)\b", re.IGNORECASE
)


@dataclass(frozen=True)
class Count:
    """One count field of a role, relative to the role element."""

    field: str
    default: int | None
    evidence: Evidence
    jq: str | None = None  # a count computed from several fields of ``field``


@dataclass(frozen=True)
class Counts:
    """The counts found beside one template."""

    replicas: Count | None = None
    minimum: Count | None = None
    maximum: Count | None = None
    per_replica: Count | None = None


def _integer(node: Node) -> bool:
    return node.type == "integer" or (
        node.type == "" and bool(node.schema.get("x-kubernetes-int-or-string"))
    )


def _described_default(description: str) -> int | None:
    """The default a count's description states, where the schema declares none."""
    found = _DESCRIBED_DEFAULT.search(description)
    return int(found.group(1)) if found else None


def find_counts(role: Node) -> Counts:
    """The replica, min and max counts among ``role``'s integer properties."""
    desired = minimum = maximum = per_replica = None
    for child in role.children():
        if child.path == role.path or child.path[-1] in ("[]", "{}") or not _integer(child):
            continue
        name = child.path[-1]
        default = child.schema.get("default")
        named = f"integer named {name!r}"
        if not isinstance(default, int):
            default = _described_default(child.description)
            named += f", {default} when unset by its description" if default is not None else ""
        where = show(child.path)
        if _PER_REPLICA.match(name) and per_replica is None:
            reason = f"{named}: pods in each replica"
            per_replica = Count(name, default, _ev("replicasPath", where, reason))
        elif _MIN.match(name) and minimum is None:
            minimum = Count(name, default, _ev("minReplicasPath", where, named))
        elif _MAX.match(name) and maximum is None:
            maximum = Count(name, default, _ev("maxReplicasPath", where, named))
        elif _DESIRED.match(name) and desired is None:
            desired = Count(name, default, _ev("replicasPath", where, named))
        elif desired is None and _DESIRED_WORDS.search(child.description):
            words = _DESIRED_WORDS.search(child.description)
            assert words is not None
            desired = Count(
                name,
                default,
                Evidence(
                    "replicasPath",
                    name,
                    where,
                    f'described as "{words.group(0)}"',
                    Strength.GUESS,
                ),
            )
    if per_replica is None:
        per_replica = _pipeline(role)
    return Counts(desired, minimum, maximum, per_replica)


def _pipeline(role: Node) -> Count | None:
    """Pipeline parallelism: an integer ``pipeline`` in a ``parallelism`` object of the
    role, or of an object of the role (``multiNode.parallelism``). A model served in
    pipeline stages runs one stage per pod, so each replica is that many pods (tensor
    parallelism splits a stage over the GPUs of one pod: no count of pods). With
    integers ``data`` and ``dataLocal`` beside it (vLLM's data-parallel size and the
    ranks on one node), each stage spans ``data / dataLocal`` pods."""
    holders = [role, *(c for c in role.children() if c.type == "object")]
    for holder in holders:
        parallelism = holder.child("parallelism")
        stages = parallelism.child("pipeline") if parallelism is not None else None
        if parallelism is None or stages is None or not _integer(stages):
            continue
        default = stages.schema.get("default")
        field = ".".join(stages.path[len(role.path) :])
        reason = "pipeline parallelism: one pod per pipeline stage in each replica"
        ranks = [parallelism.child(n) for n in ("data", "dataLocal")]
        jq = None
        if all(r is not None and _integer(r) for r in ranks):
            relative = "".join(f".{step}" for step in parallelism.path[len(role.path) :])
            jq = (
                f"{relative} | ([((.data // 1) / ([.dataLocal // 1, 1] | max) | floor), 1]"
                " | max) * (.pipeline // 1)"
            )
            reason += "; data-parallel ranks over those on one pod (data / dataLocal) more"
        return Count(
            field,
            default if isinstance(default, int) else None,
            Evidence("replicasPath", jq or field, show(stages.path), reason, Strength.GUESS),
            jq,
        )
    return None


def apply_counts(
    comp: Component,
    element: Path,
    node: Node | None,
    fallback: int | None,
    holder: tuple[Path, Node | None] | None = None,
) -> None:
    """Set the counts of ``comp``, the role at ``element``: those of the object holding
    its template (``holder``, inside the element) when it has a replica count, else the
    element's. ``fallback`` is the replica count when the field is absent."""
    if node is None:
        return
    counts = find_counts(node)
    prefix = jq_path(element)
    if holder is not None and holder[1] is not None:
        inner = find_counts(holder[1])
        if inner.replicas is not None:
            counts, prefix = inner, jq_path(holder[0])
    for attr, count in (
        ("replicas_path", counts.replicas),
        ("min_replicas_path", counts.minimum),
        ("max_replicas_path", counts.maximum),
    ):
        if count is None:
            continue
        default = fallback if attr == "replicas_path" else None
        setattr(comp, attr, count_expression(prefix, count, default))
        comp.evidence.append(count.evidence)


def _ev(subject: str, where: str, reason: str) -> Evidence:
    return Evidence(subject, where.rsplit(".", 1)[-1], where, reason, Strength.VOCABULARY)


def count_expression(prefix: str, count: Count, fallback: int | None) -> str:
    """The jq of a count relative to the role element reached by ``prefix``.

    ``prefix`` ends in ``[]?`` for list and map roles: the expression then yields one
    count per role instance.
    """
    if count.jq is not None:
        return f"{prefix} | {count.jq}" if prefix != "." else count.jq
    default = count.default if count.default is not None else fallback
    field = "".join(
        f".{step}" if step.isidentifier() else f'.["{step}"]' for step in count.field.split(".")
    )
    tail = f"{field} // {default}" if default is not None else field
    if "[]?" in prefix:
        return f"{prefix} | {tail}"
    if default is None:
        return f"{prefix}{field}" if prefix != "." else field
    base = prefix if prefix != "." else ""
    return f"{base}{field} // {default}"


def job_pods_expression(prefix: str) -> str:
    """Pods per Job of a JobSpec at ``prefix``: parallelism, never more than completions.

    The Job API's own rule (parallelism defaults to 1), not a framework's.
    """
    body = "[.parallelism // 1, .completions // (.parallelism // 1)] | min"
    return f"{prefix} | {body}"


def is_job_spec(node: Node) -> bool:
    """An object shaped like a batch/v1 JobSpec: a pod template with parallelism/completions."""
    names = set(node.properties)
    return "template" in names and bool(names & {"parallelism", "completions"})
