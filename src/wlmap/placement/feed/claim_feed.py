"""The DRA claims of a workload's pods, from its view.

Each component that runs pods gives ``pods`` pods, each needing the claims its pod
template lists in ``spec.resourceClaims``: a ``resourceClaimTemplateName`` is looked up in
the inventory (one claim per pod, as the API makes them), and a ``resourceClaimTemplate``
carried in place (the template an operator such as the NIM operator creates from the
workload's spec, as its definition renders it) is read as it stands. A claim named by
``resourceClaimName`` is shared by every pod and allocated once, outside the gang; it is
left out with a warning, as the CPU/GPU placement does.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from wlmap.errors import PlacementInputError
from wlmap.placement.devices import Claim, DraInventory, PodClaims, read_claim
from wlmap.workload import WorkloadView
from wlmap.workload.resources import INLINE_TEMPLATE

__all__ = ["workload_claims"]


def workload_claims(
    view: WorkloadView,
    inventory: DraInventory,
    *,
    file: str = "",
    warnings: list[str] | None = None,
) -> list[PodClaims]:
    """The pods of a workload that need DRA devices, with their claims, in view order.

    Args:
        view: the workload's view.
        inventory: the claim templates the pods name (and the devices and classes).
        file: where the workload was read from, for error messages.
        warnings: when given, shared claims left out are appended here.

    Raises:
        PlacementInputError: a template a pod names is not in the inventory, or an
            in-place template is bad; the message names the workload and component.
    """
    workload = f"{view.kind} {view.namespace or 'default'}/{view.name}"
    found: list[PodClaims] = []
    for component in view.components:
        if component.pods <= 0 or component.template is None:
            continue
        origin = f"{workload} component {component.name}" + (
            f"[{component.instance}]" if component.instance else ""
        )
        spec = component.template.get("spec")
        entries = spec.get("resourceClaims") if isinstance(spec, Mapping) else None
        claims = tuple(
            claim
            for index, entry in enumerate(entries if isinstance(entries, list) else ())
            if (claim := _claim(entry, index, inventory, origin, file, warnings)) is not None
        )
        if not claims:
            continue
        stem = "-".join(p for p in (view.name, component.name, component.instance) if p)
        found.extend(PodClaims(f"{stem}-{i}", claims) for i in range(component.pods))
    return found


def _claim(
    entry: Any,
    index: int,
    inventory: DraInventory,
    origin: str,
    file: str,
    warnings: list[str] | None,
) -> Claim | None:
    source = (entry.get("source") or entry) if isinstance(entry, Mapping) else {}
    template = source.get("resourceClaimTemplateName")
    inline = source.get(INLINE_TEMPLATE)
    shared = source.get("resourceClaimName")
    if isinstance(inline, Mapping) and not template:
        # named after the pod's claim entry, since the operator makes the real name up
        named = {"metadata": {"name": str(entry.get("name") or f"resourceClaims[{index}]")}}
        return read_claim({"kind": "ResourceClaimTemplate", **named, **inline}, file or origin)
    if isinstance(template, str) and template:
        claim = inventory.claims.get(template)
        if claim is None:
            raise PlacementInputError(
                f"{origin}: ResourceClaimTemplate {template!r} (resourceClaims[{index}]) is "
                "not in the input",
                file=file,
                row=None,
                column=None,
            )
        return claim
    if isinstance(shared, str) and shared:
        if warnings is not None:
            warnings.append(f"{origin}: shared ResourceClaim {shared!r} is not placed per pod")
        return None
    raise PlacementInputError(
        f"{origin}: resourceClaims[{index}] names no resourceClaimTemplateName, "
        f"resourceClaimName or {INLINE_TEMPLATE}",
        file=file,
        row=None,
        column=None,
    )
