"""The policy registry."""

from __future__ import annotations

import pytest

from wlmap.placement.packing import POLICIES, make_policy


def test_baselines_are_registered_by_their_names() -> None:
    assert {"random", "dotproduct", "clustering", "packing", "bestfit"} <= set(POLICIES)


def test_unknown_policy_names_the_known_ones() -> None:
    with pytest.raises(ValueError, match=r"expected one of: .*bestfit"):
        make_policy("tetris")
