"""The admission policy that keeps the operator's pod patches to the pod link annotations.

RBAC cannot say which fields a ``patch`` may touch, and the operator must be able to patch
any pod it serves. A ValidatingAdmissionPolicy (``admissionregistration.k8s.io/v1``, run
by the API server itself, no webhook) closes the gap: for requests by the operator's
service account on pods, every change other than the annotations the operator writes
(KAI's ``pod-group-name``, Volcano's ``scheduling.k8s.io/group-name``) is denied: labels,
other annotations, owner references, finalizers and the spec must stay as they were, and
creating or deleting a pod is refused outright (RBAC refuses it first; the policy still
holds if someone widens the role). The one exception is the spec of a pod that carries the
placement gate (``gating``): the placement controller narrows its node affinity and
removes the gate; on a gated pod the API server itself allows no spec change but narrowing
its node selection (and tolerations) and removing gates.
"""

from __future__ import annotations

from typing import Any

from wlmap.operator.core.gate import GATE
from wlmap.operator.core.settings import POD_LINKS
from wlmap.operator.deploy.rbac import LABELS, NAME, USERNAME

POLICY_FILE = "policy.yaml"
POLICY = f"{NAME}-pod-links"
ADMISSION_API = "admissionregistration.k8s.io/v1"
LINK_ANNOTATIONS = tuple(sorted(a for a in POD_LINKS.values() if a is not None))
DENIED = f"{USERNAME} may only change the pod group link annotations"

# Annotations and labels are absent (not empty) on a pod without any: read them as {}.
_VARIABLES = {
    "links": "[" + ", ".join(f"'{a}'" for a in LINK_ANNOTATIONS) + "]",
    "newAnnotations": "object.metadata.?annotations.orValue({})",
    "oldAnnotations": "oldObject.metadata.?annotations.orValue({})",
}
# Each check is (expression, what it protects); only UPDATE reaches them.
_CHECKS = (
    (
        "variables.newAnnotations.all(k, k in variables.links"
        " || (k in variables.oldAnnotations && variables.oldAnnotations[k]"
        " == variables.newAnnotations[k]))"
        " && variables.oldAnnotations.all(k, k in variables.links"
        " || k in variables.newAnnotations)",
        "other annotations",
    ),
    (
        "object.metadata.?labels.orValue({}) == oldObject.metadata.?labels.orValue({})",
        "labels",
    ),
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


def policy_manifests() -> list[dict[str, Any]]:
    """The ValidatingAdmissionPolicy and its binding (which denies, cluster-wide)."""
    links = ", ".join(LINK_ANNOTATIONS)
    validations = [
        {
            "expression": "request.operation == 'UPDATE'",
            "message": f"{USERNAME} may not create or delete pods",
            "reason": "Forbidden",
        },
        *(
            {
                "expression": f"request.operation != 'UPDATE' || ({expression})",
                "message": f"{DENIED} ({links}), not {what}",
                "reason": "Forbidden",
            }
            for expression, what in _CHECKS
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
                    }
                ]
            },
            "matchConditions": [
                {
                    "name": "by-the-operator",
                    "expression": f"request.userInfo.username == '{USERNAME}'",
                }
            ],
            "variables": [{"name": k, "expression": v} for k, v in _VARIABLES.items()],
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
