"""The Lease replicas share: named by target and served scope, set from the environment."""

from __future__ import annotations

import pytest

from wlmap.operator.core.settings import Settings
from wlmap.operator.runtime.leader import lease_name


def test_replicas_serving_the_same_scope_share_a_lease_and_others_do_not() -> None:
    team_a = Settings(namespaces=("team-a",))
    assert lease_name("kai", team_a.scope_text) == lease_name("kai", team_a.scope_text)
    team_b = Settings(namespaces=("team-b",))
    assert lease_name("kai", team_a.scope_text) != lease_name("kai", team_b.scope_text)
    assert lease_name("kai", team_a.scope_text) != lease_name("volcano", team_a.scope_text)
    assert len(lease_name("workload-api", team_a.scope_text)) <= 63


def test_leader_election_settings_from_the_environment() -> None:
    settings = Settings.from_environment(
        {"WLMAP_LEADER_ELECT": "true", "WLMAP_LEASE_NAMESPACE": "ops", "WLMAP_LEASE_SECONDS": "9"}
    )
    assert (settings.leader_elect, settings.lease_namespace, settings.lease_seconds) == (
        True,
        "ops",
        9.0,
    )
    assert not Settings.from_environment({}).leader_elect
    with pytest.raises(ValueError, match="at least 3"):
        Settings(lease_seconds=1)
