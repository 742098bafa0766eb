"""The placement controller's switches, grants and pod changes: off unless asked, the
webhook's extra permissions only with it, and a gated pod's own node terms kept."""

from __future__ import annotations

import asyncio
import socket
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from cryptography import x509

from wlmap.operator.__main__ import main
from wlmap.operator.core.gate import GATE, is_gated
from wlmap.operator.core.settings import Settings
from wlmap.operator.core.webhook import self_signed, webhook_server
from wlmap.operator.deploy import rbac
from wlmap.operator.placing.gating import opted_in
from wlmap.operator.placing.release import _narrowed
from wlmap.operator.runtime.state import State

LEVELS = "topology.test/block,topology.test/rack,kubernetes.io/hostname"
RACK = {"key": "topology.test/rack", "operator": "In", "values": ["b0-r1"]}


def test_placement_is_off_unless_asked_and_needs_its_levels() -> None:
    assert Settings.from_environment({}).placement is False
    on = Settings.from_environment({"WLMAP_PLACEMENT": "on", "WLMAP_PLACEMENT_LEVELS": LEVELS})
    assert on.placement and on.placement_levels == tuple(LEVELS.split(","))
    assert on.placement_policy == "wlmap"
    with pytest.raises(ValueError, match="WLMAP_PLACEMENT_LEVELS"):
        Settings.from_environment({"WLMAP_PLACEMENT": "true"})
    with pytest.raises(ValueError, match="host:port"):
        Settings.from_environment({"WLMAP_WEBHOOK": "9443"})


def test_an_unknown_policy_is_refused_at_start_with_the_known_names() -> None:
    env = {"WLMAP_PLACEMENT": "1", "WLMAP_PLACEMENT_LEVELS": LEVELS, "WLMAP_PLACEMENT_POLICY": "x"}
    result = CliRunner().invoke(main, [], env=env)
    assert result.exit_code == 2
    assert "unknown gang policy 'x'; expected one of:" in result.output
    assert "wlmap" in result.output and "Traceback" not in result.output


def _state(namespace_labels: dict[str, str], placement: bool = True) -> State:
    settings = Settings(namespaces=("team",), placement=placement, placement_levels=("rack",))
    state = State(settings)
    state.namespace_labels["team"] = namespace_labels
    return state


def _workload(annotations: dict[str, str] | None = None, namespace: str = "team") -> Any:
    return {"metadata": {"namespace": namespace, "annotations": annotations or {}}}


def test_a_workload_opts_in_by_its_namespace_or_its_own_annotation() -> None:
    enabled = {GATE: "enabled"}
    assert opted_in(_state(enabled), _workload())
    assert not opted_in(_state({}), _workload())
    assert opted_in(_state({}), _workload({GATE: "enabled"}))
    assert not opted_in(_state(enabled), _workload({GATE: "disabled"}))
    assert not opted_in(_state(enabled), _workload(namespace="elsewhere"))  # not served
    assert not opted_in(_state(enabled, placement=False), _workload())  # feature off


def test_a_gated_pods_own_terms_are_kept_and_narrowed() -> None:
    theirs = {"matchExpressions": [{"key": "gpu", "operator": "Exists"}]}
    affinity = {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [theirs]}}
    narrowed = _narrowed(affinity, {"matchExpressions": [RACK]})
    (term,) = narrowed["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]
    assert term["matchExpressions"] == [{"key": "gpu", "operator": "Exists"}, RACK]
    fresh = _narrowed({}, {"matchExpressions": [RACK]})
    assert fresh["requiredDuringSchedulingIgnoredDuringExecution"] == {
        "nodeSelectorTerms": [{"matchExpressions": [RACK]}]
    }
    node = {"key": "metadata.name", "operator": "In", "values": ["gpu-b0-r1-h3"]}
    pinned = _narrowed(affinity, {"matchExpressions": [RACK], "matchFields": [node]})
    (term,) = pinned["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]
    assert term["matchFields"] == [node]  # the planned node, beside the domain
    assert term["matchExpressions"][-1] == RACK
    assert is_gated({"spec": {"schedulingGates": [{"name": GATE}]}})
    assert not is_gated({"spec": {"schedulingGates": [{"name": "other"}]}})


def _verbs(rules: list[dict[str, Any]], group: str, resource: str) -> set[str]:
    found: set[str] = set()
    for rule in rules:
        if group in rule["apiGroups"] and resource in rule["resources"]:
            found.update(rule["verbs"])
    return found


def test_the_placement_grants_come_only_with_placement() -> None:
    webhooks = ("admissionregistration.k8s.io", "mutatingwebhookconfigurations")
    validating = ("admissionregistration.k8s.io", "validatingwebhookconfigurations")
    assert _verbs(rbac.cluster_rules(), *webhooks) == set()
    assert _verbs(rbac.cluster_rules(), "", "nodes") == set()
    assert _verbs(rbac.namespaced_rules(), "batch", "jobs/status") == set()
    assert _verbs(rbac.cluster_rules(placement=True), *webhooks) == {"create", "patch"}
    assert _verbs(rbac.cluster_rules(placement=True), *validating) == {"create", "patch"}
    assert _verbs(rbac.cluster_rules(placement=True), "", "nodes") == {"list", "watch"}
    assert _verbs(rbac.cluster_rules(placement=True), "", "pods") == {"list", "watch"}
    assert _verbs(rbac.namespaced_rules(placement=True), "batch", "jobs/status") == {"patch"}


def test_the_webhook_says_when_it_serves(tmp_path: Path) -> None:
    """What makes replacements at start (devices removed meanwhile) waits for this: a pod
    created before the gate is served is not gated."""
    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
    env = {"WLMAP_PLACEMENT": "1", "WLMAP_PLACEMENT_LEVELS": LEVELS}
    state = State(Settings.from_environment({**env, "WLMAP_WEBHOOK": f"127.0.0.1:{port}"}))

    async def serve() -> tuple[bool, bool, str]:
        served = webhook_server(state, tmp_path)(_no_review)
        before = state.webhook_serving.is_set()
        config = await anext(served)
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=5):
                return before, state.webhook_serving.is_set(), str(config.get("url"))
        finally:
            await served.aclose()  # type: ignore[attr-defined]  # an async generator

    before, after, url = asyncio.run(serve())
    assert (before, after) == (False, True)
    assert url.startswith(f"https://127.0.0.1:{port}")


async def _no_review(*_: Any, **__: Any) -> Any:
    raise AssertionError("no admission request is sent here")


def test_the_webhook_certificate_names_its_host() -> None:
    cert, key = self_signed("127.0.0.1")
    names = x509.load_pem_x509_certificate(cert).extensions.get_extension_for_class(
        x509.SubjectAlternativeName
    )
    assert [str(ip) for ip in names.value.get_values_for_type(x509.IPAddress)] == ["127.0.0.1"]
    assert key.startswith(b"-----BEGIN PRIVATE KEY-----")
