"""Pod selectors from sample objects and their pods: the labels that tie pods to roles.

A pod belongs to a sample when it names the sample as owner or carries its name in a
label. Among those pods, a label whose values are the roles' names (or keys) selects
the component type; one whose values are instance ids selects the instance; one whose
values are small integers that differ between pods of one role is the replica index;
one whose value is the sample's name on every pod groups the whole workload (gangs),
and one on every pod, numbered and named a replica index, tells a gang per replica apart.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from wlmap.infer._components import Component
from wlmap.infer._evidence import Evidence, Strength
from wlmap.infer._samples import values_at
from wlmap.infer._schema import ITEMS


@dataclass
class PodFacts:
    """What the pods of the samples show."""

    workload_label: str | None = None
    replica_label: str | None = None  # on every pod, named a replica index: per-replica gangs
    evidence: list[Evidence] = field(default_factory=list)


def _labels(pod: Mapping[str, Any]) -> Mapping[str, str]:
    labels = (pod.get("metadata") or {}).get("labels") or {}
    return {str(k): str(v) for k, v in labels.items()}


def _owned(pod: Mapping[str, Any], sample: Mapping[str, Any]) -> bool:
    meta = sample.get("metadata") or {}
    name, uid = meta.get("name"), meta.get("uid")
    for ref in (pod.get("metadata") or {}).get("ownerReferences") or ():
        if (uid and ref.get("uid") == uid) or ref.get("name") == name:
            return True
    return bool(name) and name in _labels(pod).values()


def _key_path(label: str) -> str:
    return f'.metadata.labels["{label}"]'


def infer_selectors(
    components: Sequence[Component],
    samples: Sequence[Mapping[str, Any]],
    pods: Sequence[Mapping[str, Any]],
) -> PodFacts:
    """Set each component's pod selector from the pods of the samples; say what was used."""
    facts = PodFacts()
    for sample in samples:
        mine = [p for p in pods if _owned(p, sample)]
        if mine:
            _from_pods(components, sample, mine, facts)
    pod_components = [c for c in components if c.kind is not None and c.kind[2] == "Pod"]
    if len(pod_components) > 1:
        for comp in pod_components:
            if "componentTypeSelector" not in comp.selector:
                _guess_type(comp)
    for comp in components:
        if comp.instance_id_path and "componentInstanceSelector" not in comp.selector:
            _guess_instance(comp)
    return facts


def label_value(name_test: str, value_test: str | None = None) -> str:
    """jq of the value of a pod's first label whose name (its last ``/`` part, lower case)
    passes ``name_test`` and whose entry passes ``value_test``, or null."""
    key = f'.key | split("/") | last | ascii_downcase | {name_test}'
    where = key if value_test is None else f"({key}) and ({value_test})"
    return f"[.metadata.labels // {{}} | to_entries[] | select({where}) | .value] | first"


def _guess_instance(comp: Component) -> None:
    """Without pods to show it, the instance is named by a label named after the role.

    Controllers label each pod with the name of its role instance under a key holding
    the role's word (``volcano.sh/task-spec`` for ``tasks``,
    ``jobset.sigs.k8s.io/replicatedjob-name`` for ``replicatedJobs``); the index labels
    beside it (``task-index``) hold integers, which no instance is named.
    """
    word = comp.name.lower()
    comp.selector["componentInstanceSelector"] = {
        "idPath": label_value(f'contains("{word}")', '.value | test("^[0-9]*$") | not')
    }
    comp.evidence.append(
        Evidence(
            "podSelector instance",
            f"a label whose name holds {word!r}",
            "none",
            "no pods were given to show the label naming the instance",
            Strength.GUESS,
        )
    )


def _guess_type(comp: Component) -> None:
    """Without pods to show it, a pod plays the role some label of it names.

    Controllers label the pods of each role with the role's name (a ``role``,
    ``replica-type`` or ``node-type`` label); which label is not in the schema, so any
    label whose value is the role's name or map key selects the pod.
    """
    names = sorted({comp.name.lower()} | ({comp.role_key.lower()} if comp.role_key else set()))
    test = " or ".join(f'. == "{n}"' for n in names)
    comp.selector["componentTypeSelector"] = {
        "keyPath": f".metadata.labels // {{}} | any(.[]; ascii_downcase | {test})",
        "value": "true",
    }
    comp.evidence.append(
        Evidence(
            "podSelector type",
            f"a label valued {' or '.join(names)}",
            "none",
            "no pods were given to show the label naming the role",
            Strength.GUESS,
        )
    )


def _resembles(value: str, comp: Component) -> bool:
    v = value.lower()
    names = {comp.name.lower()} | ({comp.role_key.lower()} if comp.role_key else set())
    return any(v == n or (len(v) >= 3 and n.startswith(v)) for n in names)


def _ids(comp: Component, sample: Mapping[str, Any]) -> set[str]:
    path = comp.instance_id_path
    if not path or "[]?." not in path:
        return set()
    head, _, name = path.rpartition(".")
    steps = tuple(s for s in head.replace("[]?", ".[]").split(".") if s)
    walked = tuple(ITEMS if s == "[]" else s for s in steps)
    return {
        str(v.get(name))
        for v in values_at(sample, walked)
        if isinstance(v, Mapping) and v.get(name)
    }


def _from_pods(
    components: Sequence[Component],
    sample: Mapping[str, Any],
    pods: Sequence[Mapping[str, Any]],
    facts: PodFacts,
) -> None:
    name = str((sample.get("metadata") or {}).get("name") or "")
    keys = sorted({k for p in pods for k in _labels(p)})
    values = {k: [_labels(p).get(k) for p in pods] for k in keys}
    for key, vals in values.items():
        if facts.workload_label is None and name and all(v == name for v in vals):
            facts.workload_label = key
            facts.evidence.append(
                Evidence(
                    "workload label",
                    key,
                    "pods",
                    f"every pod of {name!r} carries its name",
                    Strength.SAMPLE,
                )
            )
        if (
            facts.replica_label is None
            and {"replica", "index"} <= set(re.split(r"[^a-z]+", key.lower()))
            and all(v is not None and v.isdigit() for v in vals)
        ):
            facts.replica_label = key  # the gang says so where it uses it
    pod_components = [c for c in components if c.kind is not None and c.kind[2] == "Pod"]
    for comp in pod_components:
        for key, vals in values.items():
            present = {v for v in vals if v is not None}
            if len(present) < 2 and len(pod_components) > 1:
                continue
            hit = next((v for v in sorted(present) if _resembles(v, comp)), None)
            if hit is not None and "componentTypeSelector" not in comp.selector:
                comp.selector["componentTypeSelector"] = {"keyPath": _key_path(key), "value": hit}
                comp.evidence.append(
                    Evidence(
                        "podSelector type",
                        f"{key}={hit}",
                        "pods",
                        f"label value names component {comp.name!r}",
                        Strength.SAMPLE,
                    )
                )
        ids = _ids(comp, sample)
        if ids:
            for key, vals in values.items():
                present = {v for v in vals if v is not None}
                if present and present <= ids and "componentInstanceSelector" not in comp.selector:
                    comp.selector["componentInstanceSelector"] = {"idPath": _key_path(key)}
                    comp.evidence.append(
                        Evidence(
                            "podSelector instance",
                            key,
                            "pods",
                            "label values are the instance ids",
                            Strength.SAMPLE,
                        )
                    )
        typed = comp.selector.get("componentTypeSelector")
        own = pods
        if typed is not None:  # only this component's pods say whether they carry an index
            label = typed["keyPath"][len('.metadata.labels["') : -2]
            own = [p for p in pods if _labels(p).get(label) == typed["value"]]
        for key in values:
            numbers = [v for v in (_labels(p).get(key) for p in own) if v is not None]
            if (
                "index" in key.lower()
                and len(set(numbers)) > 1
                and all(v.isdigit() for v in numbers)
                and "replicaSelector" not in comp.selector
            ):
                comp.selector["replicaSelector"] = {"keyPath": _key_path(key)}
                comp.evidence.append(
                    Evidence(
                        "podSelector replica",
                        key,
                        "pods",
                        "small integers that differ between pods",
                        Strength.SAMPLE,
                    )
                )
