"""The error types wlmap raises: one base, one subclass per way a caller reacts."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal


class WlmapError(Exception):
    """Base of every error wlmap raises on purpose."""


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a definition, located precisely.

    Attributes:
        definition: name of the definition (``metadata.name``) or the file it came from.
        path: dotted field path inside the definition, e.g.
            ``spec.structureDefinition.childComponents[1].ownerRef``.
        message: what is wrong and what was expected.
        component: the component the problem belongs to, when there is one.
    """

    definition: str
    path: str
    message: str
    component: str | None = None
    severity: Literal["error", "warning"] = "error"

    def __str__(self) -> str:
        where = self.definition if self.severity == "error" else f"warning: {self.definition}"
        if self.component:
            where += f" component {self.component!r}"
        if self.path:
            where += f" at {self.path}"
        return f"{where}: {self.message}"


class DefinitionError(WlmapError):
    """A definition cannot be loaded or is invalid; carries every problem found."""

    def __init__(self, problems: Sequence[Problem]) -> None:
        self.problems: tuple[Problem, ...] = tuple(problems)
        lines = "\n".join(f"  - {p}" for p in self.problems)
        count = sum(1 for p in self.problems if p.severity == "error")
        super().__init__(f"{count} problem(s) in definition:\n{lines}")


class ManifestError(WlmapError):
    """A workload manifest (YAML or JSON) cannot be read."""


class NoDefinitionError(WlmapError):
    """No definition covers the group/version/kind of an object."""


class WorkloadNotFoundError(WlmapError):
    """The named workload does not exist."""


class ClusterError(WlmapError):
    """The cluster could not be reached, or refused the request."""


class ExpressionError(WlmapError):
    """A jq expression failed to parse or to evaluate.

    Attributes:
        expression: the jq text.
        definition: the definition it belongs to, when known.
        component: the component it belongs to, when known.
        field: the definition field that holds it, when known.
    """

    def __init__(
        self,
        message: str,
        expression: str,
        *,
        definition: str | None = None,
        component: str | None = None,
        field: str | None = None,
    ) -> None:
        self.reason = message
        self.expression = expression
        self.definition = definition
        self.component = component
        self.field = field
        super().__init__(self._render())

    def _render(self) -> str:
        where = []
        if self.definition:
            where.append(f"definition {self.definition!r}")
        if self.component:
            where.append(f"component {self.component!r}")
        if self.field:
            where.append(f"field {self.field}")
        prefix = ", ".join(where)
        head = f"{prefix}: " if prefix else ""
        return f"{head}jq expression {self.expression!r}: {self.reason}"

    def located(
        self,
        *,
        definition: str | None = None,
        component: str | None = None,
        field: str | None = None,
    ) -> ExpressionError:
        """Return a copy of this error with its location filled in (existing parts kept)."""
        clone = type(self)(
            self.reason,
            self.expression,
            definition=self.definition or definition,
            component=self.component or component,
            field=self.field or field,
        )
        clone.__cause__ = self.__cause__
        return clone


class LimitExceededError(ExpressionError):
    """An evaluation hit a hard limit (outputs, input size or wall time)."""


class WriteBackError(WlmapError):
    """A field cannot be written for a component (read-only projection, no path)."""


class WorkloadShapeError(WlmapError):
    """An object does not have the shape its definition describes (e.g. id/spec count mismatch)."""


class PlacementInputError(WlmapError):
    """A placement input (node list, pod list) has a bad value, located to file, row and column.

    Attributes:
        file: the file the value came from.
        row: 1-based line number in the file (the header is line 1), or None for the whole file.
        column: the column name, or None when the problem is the row or file as a whole.
        reason: what is wrong and what was expected.
    """

    def __init__(self, reason: str, *, file: str, row: int | None, column: str | None) -> None:
        self.reason = reason
        self.file = file
        self.row = row
        self.column = column
        where = file
        if row is not None:
            where += f" row {row}"
        if column is not None:
            where += f" column {column!r}"
        super().__init__(f"{where}: {reason}")
