"""Which operators serve an admission webhook, and where the Workload API's pod group goes."""

from __future__ import annotations

import pytest

from wlmap.operator.core.settings import SYNC_TARGETS, Settings
from wlmap.operator.core.webhook import wanted
from wlmap.operator.gangs.admission import field_path

LEVELS = "topology.test/block,kubernetes.io/hostname"


@pytest.mark.parametrize("target", SYNC_TARGETS)
def test_only_a_target_linked_by_a_pod_field_serves_a_webhook_without_placement(
    target: str,
) -> None:
    # the other targets' links are patched onto running pods: no webhook to run for them
    assert wanted(Settings(target=target)) == (target == "workload-api")
    placed = Settings(target=target, placement=True, placement_levels=tuple(LEVELS.split(",")))
    assert wanted(placed)


def test_the_workload_api_pod_group_is_the_immutable_spec_field() -> None:
    assert field_path("workload-api") == ("spec", "schedulingGroup", "podGroupName")
    assert field_path("kai") is None
