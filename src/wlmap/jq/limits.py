"""Hard limits on one evaluation of a jq program."""

from __future__ import annotations

from dataclasses import dataclass

MIB = 1024 * 1024


@dataclass(frozen=True)
class Limits:
    """Bounds applied to every evaluation.

    Attributes:
        max_outputs: most outputs one evaluation may produce; more raise
            ``LimitExceededError``.
        max_input_bytes: largest input, measured as the JSON text handed to libjq. Native
            evaluation only reads the parts of the input the expression touches, so it is
            bounded by the output and time limits instead and does not measure the input.
        timeout_seconds: wall time of one evaluation. The native evaluator checks it as it
            iterates; libjq cannot be interrupted in-process, so it is enforced for libjq
            only in isolated mode, by killing the worker process.
        worker_memory_bytes: address-space cap of the isolated worker process.
        max_cells: in isolated mode, how much the native evaluator may build or traverse
            in one evaluation, in cells: one per JSON value (array element, object entry,
            scalar) and one per 8 characters of a string. Array constructions, string and
            array growth, deep comparisons, encodings and the outputs themselves are
            charged as they happen, so fan-out and repeated doubling stop with
            ``LimitExceededError`` long before memory runs out (decision 10).
        max_output_bytes: largest JSON text of the outputs the isolated worker may send
            back; more is a ``LimitExceededError``.
        worker_start_seconds: how long the isolated worker may take to start (import and
            say it is ready); not counted against ``timeout_seconds``.
    """

    max_outputs: int = 1000
    max_input_bytes: int = 8 * MIB
    timeout_seconds: float = 2.0
    worker_memory_bytes: int = 512 * MIB
    max_cells: int = 4_000_000
    max_output_bytes: int = 8 * MIB
    worker_start_seconds: float = 60.0
