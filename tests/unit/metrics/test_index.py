"""The index fed object by object: escaping, the component cap, failures, the unsynced
gauge, and GPU-seconds across deletions, team changes and restarts."""

from __future__ import annotations

import copy
from collections.abc import Iterable
from typing import Any

import pytest

from tests.unit.metrics.cluster import T0, job, pod
from tests.unit.metrics.exposition import one, samples, values
from wlmap.app import DefinitionSet
from wlmap.metrics import MetricsIndex, escape
from wlmap.sources.manifests import Manifest
from wlmap.sources.workloads import WorkloadReader

KEY = ("kubeflow.org", "PyTorchJob", "ml", "pytorch-tcp-dist-mnist")
HOUR = 3600.0


def feed(
    index: MetricsIndex,
    owner: dict[str, Any],
    pods: Iterable[dict[str, Any]],
    *,
    now: float,
    labels: dict[str, str] | None = None,
) -> None:
    """Interpret ``owner`` with ``pods`` and set it in the index, as the watches do."""
    pods = list(pods)
    registry = DefinitionSet(()).merge().registry
    reader = WorkloadReader(registry, [Manifest(o, "test") for o in (owner, *pods)])
    entry = reader.entry(owner)
    assert entry is not None
    view = reader.view(entry, owner)
    index.set_workload(KEY, view, pods, labels=labels, now=now)


def synced(**settings: Any) -> MetricsIndex:
    index = MetricsIndex(**settings)
    index.synced = True
    return index


@pytest.mark.parametrize(
    "team",
    ['quote"d', "back\\slash", "new\nline", "ünïcødé 团队", 'all "\\\n of them'],
)
def test_label_values_are_escaped_and_read_back_whole(team: str) -> None:
    index = synced()
    index.set_namespace_labels("ml", {"team": team})
    feed(index, job(), [pod(job(), "worker", 0)], now=T0 + HOUR)
    text = index.render(T0 + HOUR)
    [(_, info, _)] = [s for s in samples(text) if s[0] == "wlmap_workload_info"]
    assert info["team"] == team
    assert one(text, "wlmap_team_gpu_seconds_total", team=team) == 2 * HOUR
    assert "\n" not in escape(team)


def test_the_component_cap_leaves_out_components_but_not_totals() -> None:
    index = synced(component_cap=1)
    feed(index, job(), [], now=T0)
    text = index.render(T0)
    components = {
        dict(k)["component"] for k in values(text, "wlmap_workload_component_pods_desired")
    }
    assert components == {"pytorchjob"}  # the first of three
    assert one(text, "wlmap_workload_components") == 3
    assert one(text, "wlmap_workload_gpus_requested") == 7  # master 1 + 3 workers x 2
    assert one(text, "wlmap_exporter_components_dropped_total") == 2


def test_a_failed_interpretation_is_counted_and_served_as_unknown() -> None:
    index = synced()
    feed(index, job(), [pod(job(), "worker", 0)], now=T0)
    index.set_failed(KEY, job(), "kubeflow-org-pytorchjob-v1", now=T0 + HOUR)
    text = index.render(T0 + 2 * HOUR)
    assert one(text, "wlmap_definition_evaluation_errors_total") == 1
    states = {dict(k)["state"]: v for k, v in values(text, "wlmap_workload_state").items()}
    assert [s for s, v in states.items() if v] == ["Unknown"]
    assert not values(text, "wlmap_workload_component_pods_desired")
    # the pod's hour before the failure is kept; it is not counted further
    assert one(text, "wlmap_namespace_gpu_seconds_total", namespace="ml") == 2 * HOUR


def test_until_synced_only_the_exporter_speaks() -> None:
    index = MetricsIndex()
    feed(index, job(), [pod(job(), "worker", 0)], now=T0)
    names = {name for name, _, _ in samples(index.render(T0))}
    assert names == {
        "wlmap_exporter_cache_synced",
        "wlmap_exporter_components_dropped_total",
        "wlmap_exporter_scrape_duration_seconds",
    }
    assert one(index.render(T0), "wlmap_exporter_cache_synced") == 0
    index.synced = True
    assert one(index.render(T0), "wlmap_exporter_cache_synced") == 1
    assert values(index.render(T0), "wlmap_workload_info")


def test_a_removed_workload_leaves_its_seconds_and_no_series() -> None:
    index = synced()
    feed(index, job(), [pod(job(), "worker", 0)], now=T0 + HOUR)
    index.remove_workload(KEY, now=T0 + HOUR)
    text = index.render(T0 + 5 * HOUR)
    assert not values(text, "wlmap_workload_info")
    assert not values(text, "wlmap_pod_workload_info")
    assert one(text, "wlmap_namespace_gpu_seconds_total", namespace="ml") == 2 * HOUR
    assert not values(text, "wlmap_namespace_gpus_held")  # no pod of it is known now


def gpu_seconds(index: MetricsIndex, now: float) -> tuple[dict[str, float], dict[str, float]]:
    text = index.render(now)
    return (
        {
            dict(k)["namespace"]: v
            for k, v in values(text, "wlmap_namespace_gpu_seconds_total").items()
        },
        {dict(k)["team"]: v for k, v in values(text, "wlmap_team_gpu_seconds_total").items()},
    )


def test_gpu_seconds_survive_a_restart_from_the_pods_and_the_checkpoint() -> None:
    owner = job()
    first = pod(owner, "worker", 0, start=T0, end=T0 + HOUR)  # 2 GPUs for an hour
    second = pod(owner, "worker", 1, start=T0 + HOUR)  # 2 GPUs, running
    third = pod(owner, "worker", 2, start=T0)  # 2 GPUs, deleted at T0 + 2h
    master = pod(owner, "master", 0, start=T0 + HOUR / 2)  # 1 GPU, running
    labels = {"team": "vision"}
    before = synced()
    feed(before, owner, [first, second, third, master], now=T0 + HOUR, labels=labels)
    feed(before, owner, [first, second, master], now=T0 + 2 * HOUR, labels=labels)
    now = T0 + 3 * HOUR
    expected = 2 * HOUR + 2 * 2 * HOUR + 2 * 2 * HOUR + 1 * 2.5 * HOUR
    assert gpu_seconds(before, now) == ({"ml": expected}, {"vision": expected})

    after = synced()  # a restart: the cluster still holds three pods, the checkpoint the rest
    after.restore(copy.deepcopy(before.checkpoint()))
    feed(after, owner, [first, second, master], now=now, labels=labels)
    for restarted, kept in zip(gpu_seconds(after, now), gpu_seconds(before, now), strict=True):
        assert restarted == pytest.approx(kept)
    assert one(after.render(now), "wlmap_team_gpus_held", team="vision") == 3


def test_a_team_change_moves_only_what_comes_after_it() -> None:
    index = synced()
    index.set_namespace_labels("ml", {"team": "vision"})
    feed(index, job(), [pod(job(), "worker", 0, start=T0)], now=T0 + HOUR)
    index.clock = lambda: T0 + HOUR
    index.set_namespace_labels("ml", {"team": "speech"})
    namespaces, teams = gpu_seconds(index, T0 + 3 * HOUR)
    assert namespaces == {"ml": 2 * 3 * HOUR}  # the namespace counts the pod throughout
    assert teams == {"vision": 2 * HOUR, "speech": 2 * 2 * HOUR}
    text = index.render(T0 + 3 * HOUR)
    assert {dict(k)["team"] for k in values(text, "wlmap_workload_info")} == {"speech"}
    assert {dict(k)["team"] for k in values(text, "wlmap_pod_workload_info")} == {"speech"}
