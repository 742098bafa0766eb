"""The admission policy: the annotations the schedulers read, the operator's user, served
namespaces and wlmap's gang objects."""

from __future__ import annotations

import pytest

from tests.corpus import corpus_object
from wlmap.catalog import builtin_registry
from wlmap.operator.deploy import admission, rbac, served
from wlmap.schedulers import PROFILES, kai, volcano
from wlmap.workload import interpret


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
    rule, *others = policy["spec"]["matchConstraints"]["resourceRules"]
    assert rule["resources"] == ["pods"] and rule["apiGroups"] == [""]
    # and besides pods, events and the gang objects of every scheduler
    seen = {(g, r) for o in others for g in o["apiGroups"] for r in o["resources"]}
    assert seen == {
        ("", "events"),
        ("events.k8s.io", "events"),
        ("scheduling.run.ai", "podgroups"),
        ("scheduling.volcano.sh", "podgroups"),
        ("scheduling.k8s.io", "podgroups"),
        ("scheduling.k8s.io", "workloads"),
        ("scheduling.x-k8s.io", "podgroups"),
    }
    assert policy["spec"]["failurePolicy"] == "Fail"
    assert binding["spec"] == {
        "policyName": policy["metadata"]["name"],
        "validationActions": ["Deny"],
    }


def _served(policy: dict[str, object]) -> str:
    spec = policy["spec"]
    assert isinstance(spec, dict)
    (variable,) = [v for v in spec["variables"] if v["name"] == served.SERVED_VARIABLE]
    return str(variable["expression"])


def test_served_namespaces_follow_the_mode() -> None:
    labels = "variables.namespaceLabels"
    policy, _ = admission.policy_manifests()  # the bundle: the default namespace selector
    assert _served(policy) == (
        f"('wlmap.dev/serve' in {labels} && {labels}['wlmap.dev/serve'] == 'true')"
    )
    listed, _ = admission.policy_manifests(namespaces=("team-b", "team-a", "team-b"))
    assert _served(listed) == "request.namespace in ['team-a', 'team-b']"
    names = [v["name"] for v in policy["spec"]["variables"]]
    assert names.index("namespaceLabels") < names.index(served.SERVED_VARIABLE)


@pytest.mark.parametrize(
    ("selector", "expected"),
    [
        ("team=ml", "('team' in L && L['team'] == 'ml')"),
        ("team!=ml", "(!('team' in L) || L['team'] != 'ml')"),
        ("gpu,!frozen", "'gpu' in L && !('frozen' in L)"),
        ("", "true"),
    ],
)
def test_a_namespace_selector_becomes_cel(selector: str, expected: str) -> None:
    assert served.selector_expression(selector, labels="L") == expected


def test_system_namespaces_are_never_written_but_events_at_home() -> None:
    check = served.namespace_check()
    assert "!(request.namespace in ['kube-node-lease', 'kube-public', 'kube-system'])" in check
    assert f"request.namespace == '{rbac.NAMESPACE}'" in check
    policy, _ = admission.policy_manifests()
    first = policy["spec"]["validations"][0]
    assert first["expression"] == check  # checked first: its message names the namespace
    assert "request.namespace" in first["messageExpression"]


def test_gang_objects_must_be_labelled_as_wlmaps() -> None:
    policy, _ = admission.policy_manifests()
    messages = [v["message"] for v in policy["spec"]["validations"]]
    label = "app.kubernetes.io/managed-by=wlmap"
    assert any(
        m.endswith(f"may only create and update gang objects labelled {label}") for m in messages
    )
    assert any(f"change or delete gang objects labelled {label}" in m for m in messages)


@pytest.mark.parametrize("name", [n for n, p in PROFILES.items() if p.kept])
def test_every_gang_object_the_operator_writes_carries_the_label_the_policy_asks(
    name: str,
) -> None:
    obj = corpus_object("kubeflow-pytorchjob/deepspeed-demo-gpu.yaml", "PyTorchJob")
    view = interpret(builtin_registry().for_object(obj), obj)
    made = PROFILES[name].build(view, obj)
    assert made
    for gang in made:
        assert gang["metadata"]["labels"][served.MANAGED_BY] == served.MANAGER, gang["kind"]
