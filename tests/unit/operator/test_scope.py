"""Which namespaces and workloads the operator serves, from its settings."""

from __future__ import annotations

from typing import Any

import pytest

from tests.corpus import corpus_object
from wlmap.operator.core.settings import Settings


def _in(namespace: str, obj: dict[str, Any], **labels: str) -> dict[str, Any]:
    meta = {**obj["metadata"], "namespace": namespace}
    meta["labels"] = {**(meta.get("labels") or {}), **labels}
    return {**obj, "metadata": meta}


def jobset() -> dict[str, Any]:
    """Real objects, read when a test runs: collection must not need the corpus."""
    return corpus_object("jobset/coordinator.yaml", "JobSet")


def deployment() -> dict[str, Any]:
    return corpus_object("core-gpu/gpu-operator-tests-plugin-test-deployment.yaml", "Deployment")


def test_without_namespaces_only_labelled_namespaces_are_served() -> None:
    scope = Settings().scope
    assert scope.serves(_in("team-a", jobset()), {"wlmap.dev/serve": "true"})
    assert not scope.serves(_in("team-a", jobset()), {})
    assert not scope.serves(_in("team-a", jobset()), None)  # not seen yet
    assert not scope.serves(_in("kube-system", jobset()), {"wlmap.dev/serve": "true"})


def test_listed_namespaces_need_no_label_and_system_ones_stay_out() -> None:
    scope = Settings(namespaces=("team-a", "kube-public")).scope
    assert scope.serves(_in("team-a", jobset()), {})
    assert not scope.serves(_in("team-b", jobset()), {"wlmap.dev/serve": "true"})
    assert not scope.namespace_served("kube-public", {})
    with pytest.raises(ValueError, match="system namespace"):
        Settings(namespaces=("kube-system",))


def test_the_operators_own_namespace_is_never_served() -> None:
    scope = Settings(operator_namespace="wlmap-system").scope
    assert not scope.namespace_served("wlmap-system", {"wlmap.dev/serve": "true"})


def test_built_in_kinds_need_the_gang_label_on_themselves_or_their_namespace() -> None:
    scope = Settings(namespaces=("team-a",)).scope
    assert not scope.serves(_in("team-a", deployment()), {})
    assert scope.serves(_in("team-a", deployment(), **{"wlmap.dev/gang": "true"}), {})
    assert scope.serves(_in("team-a", deployment()), {"wlmap.dev/gang": "true"})
    opted_out = _in("team-a", deployment(), **{"wlmap.dev/gang": "false"})
    assert not scope.serves(opted_out, {"wlmap.dev/gang": "true"})
    daemonset = {**_in("team-a", deployment(), **{"wlmap.dev/gang": "true"}), "kind": "DaemonSet"}
    assert not scope.serves(daemonset, {"wlmap.dev/gang": "true"})


def test_selectors_from_the_environment() -> None:
    settings = Settings.from_environment(
        {
            "WLMAP_NAMESPACE_SELECTOR": "example.com/team,!legacy",
            "WLMAP_WORKLOAD_SELECTOR": "gpu=yes",
        }
    )
    scope = settings.scope
    team = {"example.com/team": "ml"}
    assert scope.namespace_served("a", team)
    assert not scope.namespace_served("a", {})
    assert scope.serves(_in("a", jobset(), gpu="yes"), team)
    assert not scope.serves(_in("a", jobset()), team)
    assert not scope.namespace_served("a", {**team, "legacy": "1"})
    for malformed in ("=x", "team in (a,b)"):
        with pytest.raises(ValueError, match="no valid label key"):
            Settings(namespace_selector=malformed)
