"""The documented vocabulary from native status words to the shared states.

A condition type or phase value is split into words (``RayClusterSuspended`` ->
ray, cluster, suspended). A value that is exactly one vocabulary word maps with
vocabulary strength; a value that only contains one among other words is a guess and
goes to the review list. Precedence settles values of several states at once: a
finished workload is not also running.
"""

from __future__ import annotations

import re

from wlmap.definitions.status import GenericStatus

VOCABULARY: dict[GenericStatus, frozenset[str]] = {
    GenericStatus.COMPLETED: frozenset(
        {
            "succeeded",
            "success",
            "successful",
            "complete",
            "completed",
            "completing",
            "finished",
            "done",
        }
    ),
    # A timeout is a deadline the workload missed (InitializingTimeout, TimedOut).
    GenericStatus.FAILED: frozenset(
        {
            "failed",
            "failure",
            "error",
            "errored",
            "crashed",
            "terminated",
            "terminating",
            "timeout",
            "timedout",
        }
    ),
    GenericStatus.SUSPENDED: frozenset({"suspended", "paused", "hibernated", "stopped", "aborted"}),
    GenericStatus.SUSPENDING: frozenset({"suspending", "pausing", "stopping", "aborting"}),
    GenericStatus.RESUMING: frozenset({"resuming", "resumed"}),
    # Retrying: an attempt failed and another starts (RayJob's Retrying), like restarting.
    GenericStatus.DEGRADED: frozenset(
        {"restarting", "retrying", "degraded", "unhealthy", "recovering"}
    ),
    GenericStatus.RUNNING: frozenset(
        {"running", "ready", "available", "active", "serving", "healthy", "provisioned"}
    ),
    GenericStatus.INITIALIZING: frozenset(
        {
            "pending",
            "created",
            "initializing",
            "initialized",
            "queued",
            "inqueue",
            "scheduling",
            "starting",
            "creating",
            "progressing",
            "waiting",
            "submitted",
            "new",
            "deploying",
        }
    ),
}

# The apps/v1 condition (Deployment, ReplicaSet) a controller sets while it cannot create
# or delete pods and keeps trying: a part missing, not a failed workload, whatever the
# word "failure" in it says.
REPLICA_FAILURE = "ReplicaFailure"
_DOCUMENTED = {REPLICA_FAILURE: GenericStatus.DEGRADED}

# Higher first: when values of several states hold, the state earlier here wins.
PRECEDENCE: tuple[GenericStatus, ...] = (
    GenericStatus.FAILED,
    GenericStatus.COMPLETED,
    GenericStatus.SUSPENDED,
    GenericStatus.SUSPENDING,
    GenericStatus.RESUMING,
    GenericStatus.DEGRADED,
    GenericStatus.RUNNING,
    GenericStatus.INITIALIZING,
)
_NEGATIONS = frozenset({"not", "un", "no", "non"})
_WORD = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")


def words(value: str) -> list[str]:
    """The lower-case words of a CamelCase, snake_case or spaced value."""
    return [w.lower() for w in _WORD.findall(value)]


def classify(value: str) -> tuple[GenericStatus, bool] | None:
    """The shared state a native word maps to and whether the mapping is exact.

    None when no vocabulary word is in the value, or a negation is (``NotReady``).
    """
    if value in _DOCUMENTED:
        return _DOCUMENTED[value], True
    found = words(value)
    if not found or any(w in _NEGATIONS for w in found):
        return None
    joined = "".join(found)
    for status in PRECEDENCE:
        if joined in VOCABULARY[status]:
            return status, True
    for status in PRECEDENCE:
        if any(w in VOCABULARY[status] for w in reversed(found)):
            return status, False
    return None


# Condition types commonly written by controllers; offered (as guesses) when neither the
# schema nor a sample names the types a workload uses. Available and Progressing are the
# apps/v1 Deployment's types, which controllers of replicated workloads copy.
COMMON_CONDITION_TYPES: tuple[str, ...] = (
    "Available",
    "Progressing",
    "Created",
    "Running",
    "Ready",
    "Succeeded",
    "Complete",
    "Completed",
    "Failed",
    "Suspended",
    "Restarting",
)
