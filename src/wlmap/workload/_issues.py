"""Collecting what went wrong while interpreting, or raising it at once in strict mode."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from wlmap import jq
from wlmap.errors import ExpressionError, WlmapError
from wlmap.workload.compiled import Expr


class Issues:
    """The errors met while building a view, and the expressions' shared results.

    In strict mode the first error is raised; otherwise it is kept and the part of the
    view it affects is left empty, so one bad expression does not hide the rest.

    While ``session`` is set, expressions evaluated through :meth:`outputs` share the
    results of their common sub-expressions per input value; set it to None before the
    evaluated values may change.
    """

    def __init__(self, *, strict: bool, share: bool = False) -> None:
        self.strict = strict
        self.errors: list[WlmapError] = []
        self.session: jq.Session | None = jq.Session() if share else None

    def report(self, error: WlmapError) -> None:
        """Record an error (or raise it in strict mode)."""
        if self.strict:
            raise error
        self.errors.append(error)

    def outputs(
        self, expr: Expr | None, value: Any, variables: Mapping[str, Any] | None
    ) -> list[Any] | None:
        """All outputs of an optional expression; ``None`` when unset or failed."""
        if expr is None:
            return None
        try:
            if variables is None:  # the common case, without a layer per evaluation
                return expr.read(value, self.session)
            return expr.all(value, variables, self.session)
        except ExpressionError as exc:
            self.report(expr.located(exc))
            return None

    def messages(self) -> list[str]:
        """The recorded errors as one line each."""
        return [str(e) for e in self.errors]
