"""The admission policy that keeps the operator's writes to what it serves: its pod
patches to the pod group links, its writes to served namespaces, its gang objects to
those labelled as wlmap's (the last two: see ``served``).

RBAC cannot say which fields a ``patch`` may touch, and the operator must be able to patch
any pod it serves. A ValidatingAdmissionPolicy (``admissionregistration.k8s.io/v1``, run
by the API server itself, no webhook) closes the gap: for requests by the operator's
service account on pods, every change other than the annotations the operator writes
(KAI's ``pod-group-name``, Volcano's ``scheduling.k8s.io/group-name``), and the labels of
the schedulers that link pods by a label, is denied: other labels,
other annotations, owner references, finalizers and the spec must stay as they were, and
creating or deleting a pod is refused outright (RBAC refuses it first; the policy still
holds if someone widens the role). The one exception is the spec of a pod that carries the
placement gate (``gating``): the placement controller narrows its node affinity and
removes the gate; on a gated pod the API server itself allows no spec change but narrowing
its node selection (and tolerations) and removing gates.

The one policy sees pods, events and the gang kinds; each check names the resource it
holds for. Its ``served`` variable is the namespace test of the mode: the bundle's holds
the default namespace selector, an overlay replaces it with the listed namespaces or
another selector (``overlay``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from wlmap.operator.core.gate import GATE
from wlmap.operator.core.settings import POD_LINKS
from wlmap.operator.deploy import served
from wlmap.operator.deploy.rbac import LABELS, NAME, USERNAME

POLICY_FILE = "policy.yaml"
POLICY = f"{NAME}-pod-links"
ADMISSION_API = "admissionregistration.k8s.io/v1"
LINK_ANNOTATIONS = tuple(
    sorted(k.name for k in POD_LINKS.values() if k is not None and k.place == "annotations")
)
LINK_LABELS = tuple(
    sorted(k.name for k in POD_LINKS.values() if k is not None and k.place == "labels")
)
DENIED = f"{USERNAME} may only change the pod group link annotations" + (
    " and labels" if LINK_LABELS else ""
)


def _only_links(new: str, old: str, links: str) -> str:
    """A CEL check: between the ``old`` and ``new`` maps, only keys in ``links`` changed."""
    return (
        f"variables.{new}.all(k, k in variables.{links}"
        f" || (k in variables.{old} && variables.{old}[k]"
        f" == variables.{new}[k]))"
        f" && variables.{old}.all(k, k in variables.{links}"
        f" || k in variables.{new})"
    )


def _cel_list(names: tuple[str, ...]) -> str:
    return "[" + ", ".join(f"'{a}'" for a in names) + "]"


# Annotations and labels are absent (not empty) on a pod without any: read them as {}.
_VARIABLES = {
    "links": _cel_list(LINK_ANNOTATIONS),
    "newAnnotations": "object.metadata.?annotations.orValue({})",
    "oldAnnotations": "oldObject.metadata.?annotations.orValue({})",
}
_LABELS_KEPT = "object.metadata.?labels.orValue({}) == oldObject.metadata.?labels.orValue({})"
if LINK_LABELS:  # a scheduler links pods by a label: that label may change, no other
    _VARIABLES |= {
        "labelLinks": _cel_list(LINK_LABELS),
        "newLabels": "object.metadata.?labels.orValue({})",
        "oldLabels": "oldObject.metadata.?labels.orValue({})",
    }
    _LABELS_KEPT = _only_links("newLabels", "oldLabels", "labelLinks")
# The pod checks hold for pods only (the policy sees events and gang objects too).
_NOT_POD = "request.resource.resource != 'pods'"
# Each check is (expression, what it protects); only UPDATE reaches them.
_CHECKS = (
    (_only_links("newAnnotations", "oldAnnotations", "links"), "other annotations"),
    (_LABELS_KEPT, "labels"),  # the link labels are named in every message
    (
        "object.metadata.?ownerReferences.orValue([])"
        " == oldObject.metadata.?ownerReferences.orValue([])",
        "owner references",
    ),
    (
        "object.metadata.?finalizers.orValue([]) == oldObject.metadata.?finalizers.orValue([])",
        "finalizers",
    ),
    (
        "object.spec == oldObject.spec"
        f" || oldObject.spec.?schedulingGates.orValue([]).exists(g, g.name == '{GATE}')",
        "the spec (but of a pod the placement controller holds)",
    ),
)


def policy_manifests(
    namespaces: Sequence[str] = (), namespace_selector: str | None = None
) -> list[dict[str, Any]]:
    """The ValidatingAdmissionPolicy and its binding (which denies, cluster-wide), for an
    operator serving ``namespaces`` when listed, else the namespaces its selector matches
    (``namespace_selector``, default ``wlmap.dev/serve=true``)."""
    links = ", ".join((*LINK_ANNOTATIONS, *LINK_LABELS))
    variables = {  # a variable reads only those before it
        "namespaceLabels": "namespaceObject.metadata.?labels.orValue({})",
        served.SERVED_VARIABLE: served.served_expression(namespaces, namespace_selector),
        **_VARIABLES,
    }
    validations = [
        {
            "expression": served.namespace_check(),
            "messageExpression": f"'{USERNAME} writes only in the namespaces it serves, "
            "not in ' + request.namespace",
            "message": f"{USERNAME} writes only in the namespaces it serves",
            "reason": "Forbidden",
        },
        {
            "expression": f"{_NOT_POD} || request.operation == 'UPDATE'",
            "message": f"{USERNAME} may not create or delete pods",
            "reason": "Forbidden",
        },
        *(
            {
                "expression": f"{_NOT_POD} || request.operation != 'UPDATE' || ({expression})",
                "message": f"{DENIED} ({links}), not {what}",
                "reason": "Forbidden",
            }
            for expression, what in _CHECKS
        ),
        *(
            {"expression": expression, "message": f"{USERNAME} {what}", "reason": "Forbidden"}
            for expression, what in served.gang_checks()
        ),
    ]
    policy = {
        "apiVersion": ADMISSION_API,
        "kind": "ValidatingAdmissionPolicy",
        "metadata": {"name": POLICY, "labels": LABELS},
        "spec": {
            "failurePolicy": "Fail",
            "matchConstraints": {
                "resourceRules": [
                    {
                        "apiGroups": [""],
                        "apiVersions": ["v1"],
                        "operations": ["CREATE", "UPDATE", "DELETE"],
                        "resources": ["pods"],
                    },
                    *served.resource_rules(),
                ]
            },
            "matchConditions": [
                {
                    "name": "by-the-operator",
                    "expression": f"request.userInfo.username == '{USERNAME}'",
                }
            ],
            "variables": [{"name": k, "expression": v} for k, v in variables.items()],
            "validations": validations,
        },
    }
    policy_binding = {
        "apiVersion": ADMISSION_API,
        "kind": "ValidatingAdmissionPolicyBinding",
        "metadata": {"name": POLICY, "labels": LABELS},
        "spec": {"policyName": POLICY, "validationActions": ["Deny"]},
    }
    return [policy, policy_binding]
