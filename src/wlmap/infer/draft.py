"""Drafting a definition for a workload kind from its CRD, sample objects and their pods."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from wlmap.definitions.document import (
    KARTA_API_VERSIONS,
    KARTA_KIND,
    WLMAP_API_VERSION,
    WLMAP_KIND,
    slug,
)
from wlmap.definitions.gvk import GroupVersionKind
from wlmap.definitions.status import STATUS_ORDER, GenericStatus
from wlmap.errors import ManifestError
from wlmap.infer._components import POD, Component
from wlmap.infer._evidence import Evidence, Strength
from wlmap.infer._fragments import find_fragments
from wlmap.infer._gang import gang_description, plan_gang
from wlmap.infer._references import Reference, plan_through
from wlmap.infer._render import render
from wlmap.infer._roles import plan_roles
from wlmap.infer._samples import of_kind
from wlmap.infer._schema import Node, borrowed_schema, show, version_schema
from wlmap.infer._selectors import infer_selectors
from wlmap.infer._shape_check import check_objects
from wlmap.infer._shared_minimum import share_spec_minimum
from wlmap.infer._status import plan_status
from wlmap.infer._suspend import Suspend, find_suspend, stopped_counts
from wlmap.infer._switched import apply_switched_bounds
from wlmap.infer._templates import Template, find_templates

Format = Literal["wlmap", "karta"]


@dataclass(frozen=True)
class Draft:
    """A drafted definition, the evidence for each choice and what a person must confirm.

    Attributes:
        gvk: the workload kind the draft covers.
        definition: the definition document as plain data.
        evidence: every choice with its source, in the order they were made.
        text: the YAML document with comments, ready to save.
    """

    gvk: GroupVersionKind
    definition: dict[str, Any]
    evidence: tuple[Evidence, ...]
    text: str

    @property
    def review(self) -> tuple[Evidence, ...]:
        """The guesses: choices a person must confirm."""
        return tuple(e for e in self.evidence if e.needs_review)


def infer(
    crd: Mapping[str, Any],
    version: str | None = None,
    samples: Sequence[Mapping[str, Any]] = (),
    pods: Sequence[Mapping[str, Any]] = (),
    output: Format = "wlmap",
    known: Sequence[Mapping[str, Any]] = (),
) -> Draft:
    """Draft a definition for the kind ``crd`` defines.

    Args:
        crd: a CustomResourceDefinition object.
        version: the served version to draft for (default: the storage version).
        samples: objects of the kind (others are ignored); they carry what schemaless
            parts of the CRD leave open and show the condition types in use.
        pods: pods of those objects; their labels become pod selectors.
        output: ``wlmap`` (a WorkloadMap) or ``karta`` (a Karta).
        known: CRDs of other kinds; a kind with no pod template of its own that names
            one of them by reference (a runtime) takes its pods from that kind's
            templates (wlmap format only: references are a wlmap extension).

    Raises:
        ManifestError: not a CRD, a malformed CRD, sample or pod (named with the place
            of the fault), an unknown version, or no pod template anywhere.
    """
    if crd.get("kind") != "CustomResourceDefinition":
        raise ManifestError(f"expected a CustomResourceDefinition, got kind {crd.get('kind')!r}")
    chosen, schema = version_schema(crd, version)  # checks the CRD's shape first
    check_objects(samples, "sample")
    check_objects(pods, "pod")
    spec = crd["spec"]
    group, kind = str(spec["group"]), str(spec["names"]["kind"])
    evidence: list[Evidence] = []
    borrowed = borrowed_schema(crd, chosen, schema)
    if borrowed is not None:
        schema = borrowed[1]
        evidence.append(
            Evidence(
                "schema",
                f"version {borrowed[0]}",
                f"{chosen} .spec",
                f"{chosen} describes no spec fields; {borrowed[0]} of the same kind does",
                Strength.GUESS,
            )
        )
    gvk = GroupVersionKind(group=group, version=chosen, kind=kind)
    mine = of_kind(samples, group, kind)
    root = kind.lower()
    spec_node = schema.child("spec") or Node(
        ("spec",), {"x-kubernetes-preserve-unknown-fields": True}
    )
    templates, references, components = _structure(
        root, spec_node, mine, samples, known, output, f"{kind}.{group} {chosen}"
    )
    evidence += [r.evidence for r in references]
    evidence += [_overridden(t) for t in templates if references]
    suspend = find_suspend(spec_node, templates)
    if suspend is not None and suspend.stops_pods:
        for comp in components:
            if comp.owner == root and comp.replicas_path is not None:
                comp.replicas_path = stopped_counts(suspend, comp.replicas_path)
    status = plan_status(
        schema.child("status"), mine, suspend.asked if suspend else None, spec_node
    )
    facts = infer_selectors(components, mine, pods)
    # A gang is a job: what can complete by evidence (an enum, a sample, a phase value),
    # not by a common condition type offered as a guess, or what a boolean suspends (the
    # batch queues' handle). Services and node sets are no gangs.
    completes = (suspend is not None and suspend.on == "true") or any(
        e.choice == GenericStatus.COMPLETED.value and not e.needs_review for e in status.evidence
    )
    states = [s for s in status.mappings if s is not GenericStatus.COMPLETED or completes]
    described = gang_description(schema, spec_node, [t.path for t in templates])
    gang, gang_evidence = plan_gang(
        root, components, states, facts.workload_label, kind, described, facts.replica_label
    )
    lone = _lone_pod(root, components) if gang is None else None
    if lone is not None:
        lone.evidence.append(
            Evidence(
                "component",
                f"{root}: the pod",
                lone.template_path or lone.pod_spec_path or ".spec",
                "one pod template and no count anywhere: the workload is its one pod",
                Strength.SHAPE,
            )
        )
    if suspend is not None:
        evidence.append(suspend.evidence)
    evidence += status.evidence
    for comp in components:
        evidence += comp.evidence
    evidence += facts.evidence
    if gang_evidence is not None:
        evidence.append(gang_evidence)
    document = _document(gvk, root, components, status, suspend, gang, output, lone, references)
    text = render(document, evidence, f"{kind} ({group}/{chosen})")
    return Draft(gvk, document, tuple(evidence), text)


def _structure(
    root: str,
    spec_node: Node,
    mine: Sequence[Mapping[str, Any]],
    samples: Sequence[Mapping[str, Any]],
    known: Sequence[Mapping[str, Any]],
    output: Format,
    what: str,
) -> tuple[list[Template], list[Reference], list[Component]]:
    """The kind's own pod templates, the references its pods come through (when it has
    no template of its own) and the components either makes.

    Raises:
        ManifestError: no pod template anywhere.
    """
    # Pods described field by field only where no template describes them.
    templates = find_templates(spec_node, mine) or find_fragments(spec_node)
    # Without a template of its own, the pods may come from an object the kind names.
    through = (
        None
        if output == "karta" or any(t.shape != "fragments" for t in templates)
        else plan_through(root, spec_node, samples, known, templates)
    )
    if through is not None:
        return templates, *through
    if not templates:
        hint = (
            " (its spec is schemaless: pass sample objects with -f)" if spec_node.schemaless else ""
        )
        raise ManifestError(
            f"{what}: no pod template under .spec: no object whose spec has containers with "
            f"images, no object with an image beside container resources, no sample holds "
            f"one there, and no given CRD of a kind it names by reference holds one{hint}"
        )
    components = plan_roles(root, spec_node, templates, mine)
    share_spec_minimum(spec_node, components)
    apply_switched_bounds(spec_node, components)
    return templates, [], components


def _overridden(template: Template) -> Evidence:
    """The kind's own pod fields beside a reference whose object holds the templates:
    the operator merges them in, in ways no schema says."""
    return Evidence(
        "component",
        "not drafted",
        show(template.path),
        "pod fields of the kind's own, beside a reference whose object holds the pod "
        "templates: they override what the templates say (resources, image; a count too "
        "where no sample of the referenced kind shows the role it names), in ways only "
        "the operator knows; apply them by hand",
        Strength.GUESS,
    )


def _lone_pod(root: str, components: Sequence[Component]) -> Component | None:
    """The one pod of a kind whose spec holds one template and no count (a Notebook): the
    draft shows the workload as that pod, one component, as a server of one pod is."""
    if len(components) != 1:
        return None
    comp = components[0]
    uncounted = comp.replicas_path == "1" and comp.min_replicas_path is None
    templated = comp.template_path is not None or comp.pod_spec_path is not None
    alone = comp.owner == root and comp.instance_id_path is None
    return comp if uncounted and templated and alone and comp.kind == POD else None


def _document(
    gvk: GroupVersionKind,
    root: str,
    components: Sequence[Component],
    status: Any,
    suspend: Suspend | None,
    gang: dict[str, Any] | None,
    output: Format,
    lone: Component | None = None,
    references: Sequence[Reference] = (),
) -> dict[str, Any]:
    status_definition: dict[str, Any] = {}
    if status.phase_path:
        status_definition["phaseDefinition"] = {"path": status.phase_path}
    if status.conditions_path:
        status_definition["conditionsDefinition"] = {"path": status.conditions_path}
    status_definition["statusMappings"] = {
        s.value.lower(): status.mappings[s] for s in STATUS_ORDER if s in status.mappings
    }
    root_component: dict[str, Any] = {
        "name": root,
        "kind": {"group": gvk.group, "version": gvk.version, "kind": gvk.kind},
        "statusDefinition": status_definition,
    }
    if suspend is not None:
        root_component["suspendDefinition"] = {
            "suspendActions": [{"path": suspend.path, "value": suspend.on}],
            "resumeActions": [{"path": suspend.path, "value": suspend.off}],
        }
    if lone is not None:
        pod = _component(lone)
        root_component.update(
            {k: pod[k] for k in ("specDefinition", "scaleDefinition", "podSelector") if k in pod}
        )
        components = ()
    structure: dict[str, Any] = {
        **({"references": [r.entry() for r in references]} if references else {}),
        "rootComponent": root_component,
        "childComponents": [_component(c) for c in components],
    }
    spec: dict[str, Any] = {"structureDefinition": structure}
    if gang is not None:
        spec["optimizationInstructions"] = {"gangScheduling": gang}
    api_version, kind = (
        (WLMAP_API_VERSION, WLMAP_KIND)
        if output == "wlmap"
        else (KARTA_API_VERSIONS[0], KARTA_KIND)
    )
    return {"apiVersion": api_version, "kind": kind, "metadata": {"name": slug(gvk)}, "spec": spec}


def _component(comp: Component) -> dict[str, Any]:
    out: dict[str, Any] = {"name": comp.name, "ownerRef": comp.owner}
    if comp.kind is not None:
        out["kind"] = {"group": comp.kind[0], "version": comp.kind[1], "kind": comp.kind[2]}
    if comp.instance_id_path:
        out["instanceIdPath"] = comp.instance_id_path
    if comp.template_path:
        out["specDefinition"] = {"podTemplateSpecPath": comp.template_path}
    elif comp.pod_spec_path:
        out["specDefinition"] = {"podSpecPath": comp.pod_spec_path}
    elif comp.fragments:
        out["specDefinition"] = {"fragmentedPodSpecDefinition": comp.fragments}
    scale = {
        key: value
        for key, value in (
            ("replicasPath", comp.replicas_path),
            ("minReplicasPath", comp.min_replicas_path),
            ("maxReplicasPath", comp.max_replicas_path),
        )
        if value is not None
    }
    if scale:
        out["scaleDefinition"] = scale
    if comp.selector:
        out["podSelector"] = comp.selector
    return out
