"""Collecting what went wrong while interpreting, or raising it at once in strict mode."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from wlmap.errors import ExpressionError, WlmapError
from wlmap.workload.compiled import Expr

T = TypeVar("T")


class Issues:
    """The errors met while building a view.

    In strict mode the first error is raised; otherwise it is kept and the part of the
    view it affects is left empty, so one bad expression does not hide the rest.
    """

    def __init__(self, *, strict: bool) -> None:
        self.strict = strict
        self.errors: list[WlmapError] = []

    def report(self, error: WlmapError) -> None:
        """Record an error (or raise it in strict mode)."""
        if self.strict:
            raise error
        self.errors.append(error)

    def attempt(self, action: Callable[[], T], fallback: T) -> T:
        """Run ``action``; on a wlmap error, report it and return ``fallback``."""
        try:
            return action()
        except WlmapError as exc:
            self.report(exc)
            return fallback

    def outputs(
        self, expr: Expr | None, value: Any, variables: Mapping[str, Any] | None
    ) -> list[Any] | None:
        """All outputs of an optional expression; ``None`` when unset or failed."""
        if expr is None:
            return None
        try:
            return expr.all(value, variables)
        except ExpressionError as exc:
            self.report(exc)
            return None

    def messages(self) -> list[str]:
        """The recorded errors as one line each."""
        return [str(e) for e in self.errors]
