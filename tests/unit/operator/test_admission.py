"""The admission policy names the annotations the schedulers read and the operator's user."""

from __future__ import annotations

from wlmap.operator.deploy import admission, rbac
from wlmap.schedulers import kai, volcano


def test_the_policy_allows_exactly_the_schedulers_link_annotations() -> None:
    assert (
        tuple(sorted([kai.POD_GROUP_ANNOTATION, volcano.POD_GROUP_ANNOTATION]))
        == admission.LINK_ANNOTATIONS
    )
    policy, _ = admission.policy_manifests()
    (links,) = [v for v in policy["spec"]["variables"] if v["name"] == "links"]
    assert links["expression"] == "['pod-group-name', 'scheduling.k8s.io/group-name']"


def test_the_policy_matches_the_operators_service_account_on_pods() -> None:
    policy, binding = admission.policy_manifests()
    (condition,) = policy["spec"]["matchConditions"]
    assert rbac.USERNAME == "system:serviceaccount:wlmap-system:wlmap-operator"
    assert condition["expression"] == f"request.userInfo.username == '{rbac.USERNAME}'"
    (rule,) = policy["spec"]["matchConstraints"]["resourceRules"]
    assert rule["resources"] == ["pods"] and rule["apiGroups"] == [""]
    assert policy["spec"]["failurePolicy"] == "Fail"
    assert binding["spec"] == {
        "policyName": policy["metadata"]["name"],
        "validationActions": ["Deny"],
    }
