"""Every CLI test runs at a fixed terminal width, without colour, as if in a pipe."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def fixed_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "100")
    monkeypatch.setenv("NO_COLOR", "1")
