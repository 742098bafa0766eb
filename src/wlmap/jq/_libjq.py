"""Evaluation with libjq (the ``jq`` Python binding), in this process.

A program is compiled once. Variables are not baked into the program text: the program is
wrapped as ``. as [$__wlmap_in, $__wlmap_vars] | $__wlmap_vars.x as $x | $__wlmap_in |
(EXPR)`` and fed ``[value, variables]``, so one compiled program serves every call.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

_NAME = re.compile(r"[A-Za-z_][A-Za-z_0-9]*")


class LibjqError(Exception):
    """libjq rejected a program (``compile=True``) or failed while running it."""

    def __init__(self, message: str, *, compile_error: bool) -> None:
        super().__init__(message)
        self.message = message
        self.compile_error = compile_error


class OutputLimit(Exception):
    """An evaluation produced more outputs than allowed."""


def wrap(text: str, names: Sequence[str]) -> str:
    """The program text that binds ``names`` from the second element of the input."""
    if not names:
        return text
    for name in names:
        if not _NAME.fullmatch(name):
            raise LibjqError(f"invalid variable name {name!r}", compile_error=True)
    binds = "".join(f"$__wlmap_vars.{name} as ${name} | " for name in names)
    return f". as [$__wlmap_in, $__wlmap_vars] | {binds}$__wlmap_in | ({text}\n)"


def wrap_input(value_json: str, names: Sequence[str], variables: dict[str, Any]) -> str:
    """The JSON input matching :func:`wrap`."""
    if not names:
        return value_json
    chosen = {name: variables.get(name) for name in names}
    return f"[{value_json},{json.dumps(chosen)}]"


def compile_program(text: str) -> Any:
    """Compile with libjq, translating its error."""
    # start-up cost: the catalog's programs mostly run natively and never load libjq
    import jq  # noqa: PLC0415

    try:
        return jq.compile(text)
    except ValueError as err:
        raise LibjqError(str(err), compile_error=True) from None


def collect(outputs: Iterable[Any], max_outputs: int) -> list[Any]:
    """Gather outputs, stopping with :class:`OutputLimit` past ``max_outputs``."""
    result: list[Any] = []
    iterator: Iterator[Any] = iter(outputs)
    try:
        for value in iterator:
            result.append(value)
            if len(result) > max_outputs:
                raise OutputLimit(f"more than {max_outputs} outputs")
    except ValueError as err:
        raise LibjqError(str(err), compile_error=False) from None
    return result


def run(program: Any, input_json: str, max_outputs: int, first: bool = False) -> list[Any]:
    """Run a compiled program on JSON text; ``first`` stops after one output."""
    try:
        outputs = program.input_text(input_json)
    except ValueError as err:
        raise LibjqError(str(err), compile_error=False) from None
    if first:
        try:
            for value in outputs:
                return [value]
        except ValueError as err:
            raise LibjqError(str(err), compile_error=False) from None
        return []
    return collect(outputs, max_outputs)
