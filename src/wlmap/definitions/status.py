"""Models of ``statusDefinition``: where native status is and how it maps to generic statuses."""

from __future__ import annotations

from enum import StrEnum

from wlmap.definitions._base import DefinitionModel


class GenericStatus(StrEnum):
    """The shared statuses every workload kind maps onto."""

    INITIALIZING = "Initializing"
    RUNNING = "Running"
    COMPLETED = "Completed"
    FAILED = "Failed"
    DEGRADED = "Degraded"
    SUSPENDED = "Suspended"
    SUSPENDING = "Suspending"
    RESUMING = "Resuming"
    UNDEFINED = "Undefined"


# The order statuses are evaluated and reported in (the reference implementation's order).
STATUS_ORDER: tuple[GenericStatus, ...] = (
    GenericStatus.RESUMING,
    GenericStatus.SUSPENDING,
    GenericStatus.SUSPENDED,
    GenericStatus.RUNNING,
    GenericStatus.FAILED,
    GenericStatus.COMPLETED,
    GenericStatus.INITIALIZING,
    GenericStatus.DEGRADED,
)


class PhaseDefinition(DefinitionModel):
    """jq path to a phase string (first result is used)."""

    path: str


class ConditionsDefinition(DefinitionModel):
    """jq path to a list of condition objects, and the names of their fields.

    The field-name defaults are applied always (the reference applied them only
    when the definition passed through its API server).
    """

    path: str
    type_field_name: str = "type"
    status_field_name: str = "status"
    message_field_name: str = "message"
    reason_field_name: str = "reason"


class ConditionMatcher(DefinitionModel):
    """A condition that must be present, with the given status and reason when set."""

    type: str
    status: str | None = None
    reason: str | None = None


class ExpressionMatcher(DefinitionModel):
    """A jq expression whose first result, as a string, must equal ``expectedResult``."""

    expression: str
    expected_result: str


class StatusMatcher(DefinitionModel):
    """Every part that is set must hold (AND); a status holds when any matcher does (OR)."""

    by_phase: str | None = None
    by_conditions: tuple[ConditionMatcher, ...] | None = None
    by_expression: ExpressionMatcher | None = None

    def is_empty(self) -> bool:
        """True when nothing is set (such a matcher would match every object)."""
        return self.by_phase is None and not self.by_conditions and self.by_expression is None


# A documented variant of the format replaces Initializing by two states: ``pending``
# (nothing runs yet: unscheduled, out of quota, queued) and ``progressing`` (moving toward
# Running: pods being created, images pulled, scaling). Both are what the shared
# Initializing means, so their matchers are read as Initializing ones.
VARIANT_STATES: dict[str, GenericStatus] = {
    "pending": GenericStatus.INITIALIZING,
    "progressing": GenericStatus.INITIALIZING,
}


class StatusMappings(DefinitionModel):
    """Matchers per generic status (and per state of the pending/progressing variant)."""

    initializing: tuple[StatusMatcher, ...] | None = None
    running: tuple[StatusMatcher, ...] | None = None
    completed: tuple[StatusMatcher, ...] | None = None
    failed: tuple[StatusMatcher, ...] | None = None
    degraded: tuple[StatusMatcher, ...] | None = None
    suspended: tuple[StatusMatcher, ...] | None = None
    suspending: tuple[StatusMatcher, ...] | None = None
    resuming: tuple[StatusMatcher, ...] | None = None
    pending: tuple[StatusMatcher, ...] | None = None
    progressing: tuple[StatusMatcher, ...] | None = None

    def declared(self) -> list[tuple[str, GenericStatus, tuple[StatusMatcher, ...]]]:
        """Every mapping as written: its field name, the status it maps to, its matchers.

        In evaluation order; a variant state follows the shared status it maps to.
        """
        found = []
        for status in STATUS_ORDER:
            field = status.value.lower()
            names = [field, *(v for v, target in VARIANT_STATES.items() if target is status)]
            for name in names:
                matchers = getattr(self, name)
                if matchers:
                    found.append((name, status, matchers))
        return found

    def entries(self) -> list[tuple[GenericStatus, tuple[StatusMatcher, ...]]]:
        """The mapped statuses with their matchers, in evaluation order.

        The matchers of a variant state are joined to those of the status it maps to.
        """
        merged: dict[GenericStatus, tuple[StatusMatcher, ...]] = {}
        for _, status, matchers in self.declared():
            merged[status] = merged.get(status, ()) + matchers
        return list(merged.items())


class StatusDefinition(DefinitionModel):
    """Where the native status is and how it maps to generic statuses."""

    phase_definition: PhaseDefinition | None = None
    conditions_definition: ConditionsDefinition | None = None
    status_mappings: StatusMappings
