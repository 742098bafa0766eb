"""When no gang object may be written for a workload: one rule for every writer.

A gang object with the wrong minimum is worse than none: a scheduler holds every pod of
a gang whose minimum is too high, and starts a partial gang whose minimum is too low.
The operator writes nothing for such a workload, and ``wlmap podgroups`` prints nothing
for it and fails, so that neither ever hands a scheduler a wrong gang.
"""

from __future__ import annotations

from dataclasses import dataclass

from wlmap.schedulers._common import gangs
from wlmap.workload import WorkloadView

MAX_GANG_MEMBERS = 150_000
"""The largest minimum a gang may have. A gang's minimum members must run at the same
time, and Kubernetes supports at most 150,000 pods in one cluster ("Considerations for
large clusters": 5,000 nodes, 150,000 pods); a larger minimum can never be met, and such
a number comes from counts that multiply out of range (999 x 1,000 x 1,000 pods)."""

EVALUATION_FAILED = "EvaluationFailed"
GANG_TOO_LARGE = "GangTooLarge"


@dataclass(frozen=True)
class GangRefusal:
    """Why a workload gets no gang object.

    Attributes:
        reason: a CamelCase word: ``EvaluationFailed`` (what the gangs are made of failed
            to evaluate: an expression error, a count that is not a whole number in
            range, a referenced object that is absent) or ``GangTooLarge``.
        message: what failed, or which gang is too large, for the user.
    """

    reason: str
    message: str

    @property
    def evaluation_failed(self) -> bool:
        """Whether the gang's inputs failed to evaluate (not a gang too large)."""
        return self.reason == EVALUATION_FAILED


def gang_refusal(view: WorkloadView) -> GangRefusal | None:
    """Why no gang object may be written for the workload of ``view``, or None when its
    gangs can be written.

    Inputs that failed refuse every gang of the workload: an error is not tied to one
    gang, and a count that failed may feed any of them.
    """
    issues = view.gang_issues
    if issues:
        return GangRefusal(EVALUATION_FAILED, "; ".join(issues))
    too_large = [g for g in gangs(view) if g.min_member > MAX_GANG_MEMBERS]
    if too_large:
        return GangRefusal(
            GANG_TOO_LARGE,
            "; ".join(
                f"gang {g.name!r} needs {g.min_member:,} pods at once, more than the "
                f"{MAX_GANG_MEMBERS:,} pods a Kubernetes cluster supports"
                for g in too_large
            ),
        )
    return None
