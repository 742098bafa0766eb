"""Pods to place from workload views: any kind wlmap maps becomes the pods it would create.

Each component instance that runs pods becomes ``pods`` identical :class:`Pod` objects, in
the view's component order. Per pod, from the view's pod resources:

- CPU in millicores and memory in MiB, both rounded up (a request is never shrunk);
- whole GPUs: ``<domain>/gpu`` requests plus GPUs from per-pod DRA claims;
- a GPU share from the ``gpu-fraction`` annotation, in thousandths rounded up, on one GPU
  (a share spread over several GPUs cannot be expressed: multi-GPU pods take whole GPUs);
- one MIG device of an ``<n>g.<memory>`` profile, as a share of ``n`` sevenths of a GPU
  (the compute slices of an A100/H100); a MIG device class chosen by a DRA selector, or
  several MIG devices, cannot be expressed;
- accepted GPU models from ``spec.nodeSelector`` and required node affinity on the
  ``nvidia.com/gpu.product`` label (``In`` values; ``NotIn`` against the cluster's models
  when they are given; ``Exists`` accepts any model).

What cannot be expressed is an error naming the workload and component; what is left out
of the placement (other extended resources, shared claims, unresolved claims) is a warning.
"""

from __future__ import annotations

import math
import re
from collections.abc import Collection, Mapping
from dataclasses import replace
from decimal import Decimal
from typing import Any

from wlmap.errors import PlacementInputError, WlmapError
from wlmap.placement.nodes import PRODUCT_LABEL
from wlmap.placement.packing import MILLI, Pod, request_problem
from wlmap.workload import ComponentView, PodResources, WorkloadView, pod_resources
from wlmap.workload.gpus import is_gpu_resource, mig_profile

__all__ = ["MIG_SLICES", "workload_pods"]

MIG_SLICES = 7
_MIB = 1024 * 1024
_PROFILE = re.compile(r"(?P<slices>[1-7])g\.\d+gb(?:\+.*)?")
_PLAIN = frozenset({"cpu", "memory", "ephemeral-storage", "pods"})


def workload_pods(
    view: WorkloadView,
    *,
    file: str = "",
    models: Collection[str] | None = None,
    warnings: list[str] | None = None,
) -> list[Pod]:
    """The pods a workload would create, ready to place.

    Args:
        view: the workload's view.
        file: where the workload was read from, for error messages.
        models: the GPU models of the cluster, to turn ``NotIn`` affinity into the models a
            pod accepts (without them, ``NotIn`` is an error).
        warnings: when given, what is left out of the placement is appended here.

    Raises:
        PlacementInputError: a component's pods cannot be expressed; the message names
            the file, the workload and the component.
    """
    workload = f"{view.kind} {view.namespace or 'default'}/{view.name}"
    found: list[Pod] = []
    for component in view.components:
        if component.pods <= 0:
            continue
        label = component.name + (f"[{component.instance}]" if component.instance else "")
        where = _Where(file, workload, label)
        if component.template is None:
            if warnings is not None:
                warnings.append(f"{where.origin}: no pod template, its pods are not placed")
            continue
        pod = _pod(component, where, models, warnings)
        stem = "-".join(p for p in (view.name, component.name, component.instance) if p)
        found.extend(replace(pod, name=f"{stem}-{index}") for index in range(component.pods))
    return found


class _Where:
    def __init__(self, file: str, workload: str, component: str) -> None:
        self.file, self.workload, self.component = file, workload, component
        self.origin = f"{workload} component {component}"

    def fail(self, message: str) -> PlacementInputError:
        return PlacementInputError(
            f"{self.origin}: {message}", file=self.file, row=None, column=None
        )


def _pod(
    component: ComponentView,
    where: _Where,
    models: Collection[str] | None,
    warnings: list[str] | None,
) -> Pod:
    template = component.template or {}
    resources = component.per_pod or _unreadable(template, where)
    requests = resources.requests
    for resource in ("cpu", "memory"):
        if requests.get(resource, Decimal(0)) < 0:
            raise where.fail(f"the {resource} request {requests[resource]} is negative")
    num_gpu, gpu_milli = _gpus(resources, where)
    if warnings is not None:
        warnings.extend(f"{where.origin}: {note}" for note in _left_out(resources))
    spec = template.get("spec")
    spec = spec if isinstance(spec, Mapping) else {}
    pod = Pod(
        name=where.origin,
        cpu_milli=math.ceil(requests.get("cpu", Decimal(0)) * 1000),
        memory_mib=math.ceil(requests.get("memory", Decimal(0)) / _MIB),
        num_gpu=num_gpu,
        gpu_milli=gpu_milli,
        gpu_models=_accepted_models(spec, where, models) if num_gpu else None,
        origin=where.origin,
    )
    problem = request_problem(pod)
    if problem is not None:
        raise where.fail(problem)
    return pod


def _unreadable(template: Mapping[str, Any], where: _Where) -> PodResources:
    """Raise the reason the view could not read the pod resources (the view only warns)."""
    spec, metadata = template.get("spec") or {}, template.get("metadata") or {}
    try:
        pod_resources(spec, metadata)
    except WlmapError as exc:
        raise where.fail(f"cannot read the pod resources: {exc}") from None
    raise where.fail("cannot read the pod resources (see the workload's warnings)")


def _gpus(resources: PodResources, where: _Where) -> tuple[int, int]:
    """``(num_gpu, gpu_milli)`` of one pod."""
    whole = sum(
        (v for k, v in resources.requests.items() if is_gpu_resource(k)), Decimal(0)
    ) + Decimal(resources.dra_gpus)
    fraction = resources.gpu_fraction
    mig = dict(resources.mig)
    if resources.dra_all_requests:
        raise where.fail(
            "DRA requests with allocationMode All ("
            + ", ".join(resources.dra_all_requests)
            + ") have no device count until allocated"
        )
    if whole != int(whole):
        raise where.fail(f"expected a whole number of GPUs, got {whole}")
    kinds = [
        name
        for name, used in (
            ("whole GPUs", whole),
            ("a GPU share", fraction.gpus),
            ("MIG devices", mig),
        )
        if used
    ]
    if len(kinds) > 1:
        raise where.fail(f"a pod cannot ask for {' and '.join(kinds)} together")
    if fraction.memory_mib and not fraction.gpus:
        raise where.fail(
            "a gpu-memory share has no GPU size to turn it into a fraction; use gpu-fraction"
        )
    if fraction.gpus:
        share = fraction.gpus / fraction.devices
        milli = math.ceil(share * MILLI)
        if milli > MILLI:
            raise where.fail(f"a GPU share of {milli} thousandths is more than one GPU")
        if milli < MILLI and fraction.devices > 1:
            raise where.fail(
                f"a share of {share} on each of {fraction.devices} GPUs cannot be expressed; "
                "pods on several GPUs take them whole"
            )
        return (fraction.devices, MILLI) if milli == MILLI else (1, milli)
    if mig:
        return 1, _mig_share(mig, where)
    return int(whole), MILLI if whole else 0


def _mig_share(mig: Mapping[str, int], where: _Where) -> int:
    (profile, count), *others = mig.items()
    if others or count != 1:
        raise where.fail(f"{sum(mig.values())} MIG devices cannot be expressed; one is")
    match = _PROFILE.fullmatch(profile)
    if match is None:
        raise where.fail(
            f"MIG device {profile!r} has no <n>g.<memory> profile (a DRA device class "
            "leaves the profile to a selector)"
        )
    return math.ceil(int(match["slices"]) * MILLI / MIG_SLICES)


def _left_out(resources: PodResources) -> list[str]:
    notes = [
        f"{name} is not modelled; the pods are placed by CPU, memory and GPUs only"
        for name in resources.requests
        if name not in _PLAIN
        and not is_gpu_resource(name)
        and mig_profile(name) is None
        and not name.startswith("hugepages-")
    ]
    notes += [
        f"shared ResourceClaim {name!r} ({devices.gpus} GPUs) is not placed"
        for name, devices in resources.shared_claims.items()
        if devices.gpus
    ]
    notes += [
        f"claim {name!r} is not in the input, its devices are not counted"
        for name in resources.unresolved_claims
    ]
    return notes


def _accepted_models(
    spec: Mapping[str, Any], where: _Where, models: Collection[str] | None
) -> frozenset[str] | None:
    """The GPU models a pod accepts, from its node selector and required node affinity."""
    accepted: frozenset[str] | None = None
    selector = spec.get("nodeSelector")
    if isinstance(selector, Mapping) and PRODUCT_LABEL in selector:
        accepted = frozenset({str(selector[PRODUCT_LABEL])})
    affinity = spec.get("affinity")
    node_affinity = affinity.get("nodeAffinity") if isinstance(affinity, Mapping) else None
    required = (
        node_affinity.get("requiredDuringSchedulingIgnoredDuringExecution")
        if isinstance(node_affinity, Mapping)
        else None
    )
    terms = required.get("nodeSelectorTerms") if isinstance(required, Mapping) else None
    if isinstance(terms, list) and terms:
        by_terms = [_term_models(t, where, models) for t in terms]
        # terms are ORed: a term without a model requirement accepts every model
        if all(m is not None for m in by_terms):
            union = frozenset(m for term in by_terms if term is not None for m in term)
            accepted = union if accepted is None else accepted & union
    return accepted


def _term_models(term: Any, where: _Where, models: Collection[str] | None) -> frozenset[str] | None:
    expressions = term.get("matchExpressions") if isinstance(term, Mapping) else None
    accepted: frozenset[str] | None = None
    for expression in expressions if isinstance(expressions, list) else ():
        if not isinstance(expression, Mapping) or expression.get("key") != PRODUCT_LABEL:
            continue
        operator = expression.get("operator")
        values = frozenset(str(v) for v in expression.get("values") or ())
        if operator == "In":
            found = values
        elif operator == "NotIn" and models is not None:
            found = frozenset(models) - values
        elif operator == "Exists":
            continue
        else:
            raise where.fail(
                f"node affinity {PRODUCT_LABEL} {operator} cannot be expressed as accepted "
                "models" + (" without the cluster's models" if operator == "NotIn" else "")
            )
        accepted = found if accepted is None else accepted & found  # expressions are ANDed
    return accepted
