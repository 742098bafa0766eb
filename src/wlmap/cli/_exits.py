"""Exit codes, and the one place that turns errors into them."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from functools import wraps
from typing import Any, TypeVar

import click

from wlmap.errors import (
    ClusterError,
    DefinitionError,
    ManifestError,
    NoDefinitionError,
    PlacementInputError,
    WlmapError,
    WorkloadNotFoundError,
)
from wlmap.views._text import printable

OK = 0
ERROR = 1
USAGE = 2
NOT_FOUND = 3
NO_DEFINITION = 4
INVALID_DEFINITION = 5
UNREADABLE_INPUT = 6
CLUSTER = 7
TESTS_FAILED = 8
GANG_REFUSED = 9

HELP = (
    "Exit codes: 0 ok, 1 error, 2 usage, 3 workload not found, 4 no definition covers the "
    "type, 5 invalid definition, 6 unreadable input, 7 cluster or auth error, 8 definition "
    "tests failed, 9 a gang's inputs failed or it is too large (no gang object). Set WLMAP_TRACEBACK=1 to see tracebacks."
)

_CODES: list[tuple[type[WlmapError], int]] = [
    (DefinitionError, INVALID_DEFINITION),
    (ManifestError, UNREADABLE_INPUT),
    (PlacementInputError, UNREADABLE_INPUT),
    (NoDefinitionError, NO_DEFINITION),
    (WorkloadNotFoundError, NOT_FOUND),
    (ClusterError, CLUSTER),
]

F = TypeVar("F", bound=Callable[..., Any])

# The optional dependencies (pyproject's extras) the CLI's commands import, by the top-level
# module name they are imported as: the extra that brings each in.
OPTIONAL_MODULES = {
    "numpy": "placement",
    "highspy": "placement",
    "matplotlib": "placement",
    "ortools": "placement",
    "cel": "placement",
    "kopf": "operator",
    "cryptography": "operator",
}


def missing_extra(exc: ModuleNotFoundError) -> str | None:
    """The line that says which extra to install, when ``exc`` is an optional dependency's
    absence; ``None`` for any other missing module (a broken installation)."""
    module = (exc.name or "").partition(".")[0]
    extra = OPTIONAL_MODULES.get(module)
    if extra is None:
        return None
    return (
        f"this command needs {module}, one of wlmap's optional dependencies: "
        f"pip install 'wlmap[{extra}]'"
    )


class Exit(Exception):
    """Leave with a code after the output is written (not an error)."""

    def __init__(self, code: int) -> None:
        super().__init__(code)
        self.code = code


def code_for(error: WlmapError) -> int:
    """The exit code of a wlmap error."""
    return next((code for kind, code in _CODES if isinstance(error, kind)), ERROR)


def guarded(command: F) -> F:
    """Run a command: wlmap errors become one line and their code, anything else one line."""

    @wraps(command)
    def run(*args: Any, **kwargs: Any) -> Any:
        try:
            return command(*args, **kwargs)
        except (Exit, click.ClickException):
            raise
        except WlmapError as exc:
            sys.stderr.write(f"error: {printable(str(exc), lines=True)}\n")
            raise Exit(code_for(exc)) from None
        except Exception as exc:
            if os.environ.get("WLMAP_TRACEBACK"):
                raise
            if isinstance(exc, ModuleNotFoundError) and (line := missing_extra(exc)):
                sys.stderr.write(f"error: {line}\n")
                raise Exit(ERROR) from None
            sys.stderr.write(
                f"error: unexpected {type(exc).__name__}: {exc} (WLMAP_TRACEBACK=1 shows where)\n"
            )
            raise Exit(ERROR) from None

    return run  # type: ignore[return-value]  # wraps keeps the signature of F
