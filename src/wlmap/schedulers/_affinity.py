"""``wlmap plan --render affinity``: a plan as plain node affinity, for any scheduler.

Not a scheduler's profile: the default scheduler honours node affinity, so this form needs
no gang object, annotation or label of its own.
"""

from __future__ import annotations

from typing import Any

from wlmap.schedulers._profile import PlanInput, PlanRender

__all__ = ["AFFINITY"]


def _render_plan(given: PlanInput) -> list[dict[str, Any]]:
    """One node-affinity patch per component of the placed gangs."""
    # lazy: numpy and the planner load only when a plan is rendered
    from wlmap.placement.plan import affinity_patches  # noqa: PLC0415

    parts = affinity_patches(given.definition, given.obj, given.view, given.plans, given.topology)
    return [{"workload": given.workload, **part} for part in parts]


AFFINITY = PlanRender("affinity", _render_plan)
