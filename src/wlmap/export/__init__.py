"""Exports of definitions to the tools clusters already run (Argo CD's health checks).

The translator (:mod:`wlmap.export.lua`) turns the jq of definitions into bounded,
nil-safe Lua; each target module builds that target's files from it.
"""

from __future__ import annotations

from wlmap.export.argocd import HEALTH, HealthScript, Refusal, expected_health, health_scripts
from wlmap.export.lua import LuaFilter, NotTranslatable, translate

__all__ = [
    "HEALTH",
    "HealthScript",
    "LuaFilter",
    "NotTranslatable",
    "Refusal",
    "expected_health",
    "health_scripts",
    "translate",
]
