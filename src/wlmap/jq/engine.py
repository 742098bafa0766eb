"""Compiles jq programs once and evaluates them natively or with libjq, within limits."""

from __future__ import annotations

import datetime
import json
import threading
import time
from collections.abc import Mapping
from typing import Any

from wlmap.errors import ExpressionError, LimitExceededError
from wlmap.jq._bounded import walk
from wlmap.jq._libjq import LibjqError, OutputLimit, compile_program, run, wrap, wrap_input
from wlmap.jq._native import compile_native
from wlmap.jq._native_base import Code, Ctl, Env
from wlmap.jq._native_paths import Step, compile_paths, run_paths
from wlmap.jq._parser import parse
from wlmap.jq._pool import WorkerPool, current_lane
from wlmap.jq._reader import Reader, native_reader
from wlmap.jq._scope import free_variables
from wlmap.jq._values import JqError, LimitHit, Unsupported, error_message, fresh
from wlmap.jq._worker import WorkerFailure, WorkerTimeout
from wlmap.jq.limits import Limits
from wlmap.jq.paths import path_problems
from wlmap.jq.safety import unsafe_constructs


class Engine:
    """Compiles and caches jq programs.

    Args:
        limits: bounds applied to every evaluation.
        isolated: for programs from untrusted sources (anything but the built-in
            catalog): libjq runs only in a worker process with a memory cap that is killed
            when it exceeds the time limit, and native evaluation charges what it builds
            and traverses to a size budget (``Limits.max_cells``) and runs regular
            expressions with a timeout. Evaluations inside a :func:`wlmap.jq.lane` block
            use that lane's worker, so one slow definition does not hold up the others.
    """

    def __init__(self, limits: Limits | None = None, *, isolated: bool = False) -> None:
        self.limits = limits or Limits()
        self.isolated = isolated
        self._workers = (
            WorkerPool(self.limits.worker_memory_bytes, self.limits.worker_start_seconds)
            if isolated
            else None
        )
        self._cache: dict[tuple[str, bool], Program] = {}
        self._lock = threading.Lock()

    def compile(self, text: str, *, allow_assignment: bool = False, verify: bool = True) -> Program:
        """Parse, check and compile a program (cached by text).

        Args:
            text: the jq program.
            allow_assignment: accept assignment and ``del`` (for write paths).
            verify: also have libjq compile it, so that whatever libjq rejects is reported
                now. Programs that run natively skip that step (about 2 ms each) when
                ``verify`` is false; those that need libjq are always compiled by it.

        Raises:
            ExpressionError: a syntax error, an unsafe construct, or a libjq compile error.
        """
        key = (text, allow_assignment)
        program = self._cache.get(key)
        if program is None:
            program = Program(self, text, allow_assignment)
            with self._lock:
                self._cache[key] = program
        if verify and not program.verified:
            self._check_compiles(program, text)
            program.verified = True
        return program

    def close(self) -> None:
        """Stop the isolated worker, if any."""
        if self._workers is not None:
            self._workers.close()

    def __enter__(self) -> Engine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- libjq ---------------------------------------------------------------------------
    def _libjq(
        self,
        program: Program,
        text: str,
        value: Any,
        variables: Mapping[str, Any],
        first: bool = False,
    ) -> list[Any]:
        names = program.variables
        try:
            value_json = json.dumps(value, default=_json_default)
        except (TypeError, ValueError) as exc:
            raise ExpressionError(f"the input is not JSON data: {exc}", program.text) from None
        if len(value_json) > self.limits.max_input_bytes:
            raise LimitExceededError(
                f"input of {len(value_json)} bytes exceeds {self.limits.max_input_bytes}",
                program.text,
            )
        input_json = wrap_input(value_json, names, dict(variables))
        wrapped = wrap(text, names)
        try:
            if self._workers is not None:
                worker = self._workers.worker(current_lane())
                message = {
                    "text": wrapped,
                    "input": input_json,
                    "max": self.limits.max_outputs,
                    "max_bytes": self.limits.max_output_bytes,
                    "first": first,
                }
                return worker.request(message, self.limits.timeout_seconds)
            compiled = program.libjq_programs.get(wrapped)
            if compiled is None:
                compiled = program.libjq_programs[wrapped] = compile_program(wrapped)
            return run(compiled, input_json, self.limits.max_outputs, first)
        except LibjqError as err:
            raise ExpressionError(err.message, program.text) from None
        except (OutputLimit, WorkerTimeout, WorkerFailure) as err:
            raise LimitExceededError(str(err), program.text) from None

    def _check_compiles(self, program: Program, text: str) -> None:
        wrapped = wrap(text, program.variables)
        try:
            if self._workers is not None:
                message = {"text": wrapped, "compile_only": True}
                worker = self._workers.worker(current_lane())
                worker.request(message, self.limits.timeout_seconds)
            else:
                program.libjq_programs[wrapped] = compile_program(wrapped)
        except LibjqError as err:
            raise ExpressionError(err.message, program.text) from None
        except (WorkerTimeout, WorkerFailure) as err:
            raise LimitExceededError(str(err), program.text) from None


class Program:
    """A compiled jq program; cheap to call many times.

    Attributes:
        text: the program text.
        native: True when it is evaluated in Python rather than with libjq.
        variables: the ``$names`` it reads (passed without the dollar).
    """

    def __init__(self, engine: Engine, text: str, allow_assignment: bool) -> None:
        self.text = text
        self._engine = engine
        self.node = parse(text)
        problems = unsafe_constructs(self.node, allow_assignment=allow_assignment)
        if problems:
            raise ExpressionError("unsafe jq expression: " + "; ".join(problems), text)
        self.variables = free_variables(self.node)
        self.libjq_programs: dict[str, Any] = {}
        self._bounded = engine.isolated
        self._code: Code | None = compile_native(
            self.node, frozenset(self.variables), bounded=self._bounded
        )
        self.native = self._code is not None
        self.verified = not self.native
        if not self.native:
            engine._check_compiles(self, text)
        self._path_problems: list[str] | None = None
        self._path_step: Step | None = None

    def all(
        self, value: Any, variables: Mapping[str, Any] | None = None, *, shared: bool = False
    ) -> list[Any]:
        """Every output of the program for ``value``.

        Args:
            value: the input.
            variables: values of ``$name`` variables, by name without ``$``.
            shared: allow outputs to share structure with ``value`` (no copy) for callers
                that only read them; integral floats nested inside shared outputs are not
                turned into ints the way libjq's results are.

        Raises:
            ExpressionError: jq reported an error (its message is kept).
            LimitExceededError: an output, input-size or time limit was hit.
        """
        return self._evaluate(value, variables, first=False, shared=shared)

    def first(
        self, value: Any, variables: Mapping[str, Any] | None = None, *, shared: bool = False
    ) -> Any:
        """The first output, or None when there is none."""
        outputs = self._evaluate(value, variables, first=True, shared=shared)
        return outputs[0] if outputs else None

    def reader(self) -> Reader:
        """A function giving ``all(value, shared=True)`` with the least overhead per call.

        For callers that evaluate one program on many objects without variables and only
        read the outputs. Programs evaluated on the same unchanging value may be given one
        :class:`Session`: the sub-expressions they have in common are then computed once.
        Errors and limits behave as in :meth:`all`.
        """
        code = self._code
        if code is None or self.variables:
            return lambda value, session=None: self.all(value, shared=True)
        return native_reader(
            code,
            self._engine.limits,
            lambda value: self.all(value, shared=True),
            bounded=self._bounded,
            text=self.text,
        )

    def paths(self, value: Any, variables: Mapping[str, Any] | None = None) -> list[list[Any]]:
        """What ``[path(EXPR)]`` gives: the paths into ``value`` the program selects.

        Raises:
            ExpressionError: the program is not a path expression, or evaluation failed.
        """
        if self._path_problems is None:
            self._path_problems = path_problems(self.node)
            if not self._path_problems:
                self._path_step = compile_paths(self.node, frozenset(self.variables))
        if self._path_problems:
            raise ExpressionError(
                "not a path expression: " + "; ".join(self._path_problems), self.text
            )
        variables = self._variables(variables)
        if self._path_step is not None:
            limits = self._engine.limits
            ctl = Ctl(time.monotonic() + limits.timeout_seconds, limits.max_cells)
            try:
                return run_paths(self._path_step, value, Env(variables, ctl))
            except JqError as err:
                raise ExpressionError(error_message(err.value), self.text) from None
            except LimitHit as err:
                raise LimitExceededError(str(err), self.text) from None
            except (Unsupported, RecursionError):
                pass
        found = self._engine._libjq(self, f"[path({self.text}\n)]", value, variables)
        return list(found[0]) if found else []

    def _variables(self, variables: Mapping[str, Any] | None) -> dict[str, Any]:
        if not variables and not self.variables:
            return {}
        given = dict(variables or {})
        missing = [name for name in self.variables if name not in given]
        if missing:
            raise ExpressionError(f"${missing[0]} is not defined", self.text)
        return given

    def _evaluate(
        self, value: Any, variables: Mapping[str, Any] | None, first: bool, shared: bool = False
    ) -> list[Any]:
        given = self._variables(variables)
        if self._code is not None:
            try:
                return self._native(value, given, first, shared)
            except (Unsupported, RecursionError):
                pass
        return self._engine._libjq(self, self.text, value, given, first)

    def _native(
        self, value: Any, variables: dict[str, Any], first: bool, shared: bool = False
    ) -> list[Any]:
        assert self._code is not None
        limits = self._engine.limits
        env = Env(variables, Ctl(time.monotonic() + limits.timeout_seconds, limits.max_cells))
        one = self._code.one
        if one is not None:  # exactly one output: no generator machinery
            try:
                out = one(value, env)
                if self._bounded:
                    walk(out, env.ctl)
            except JqError as err:
                raise self._failure(err, env) from None
            except LimitHit as err:
                raise LimitExceededError(str(err), self.text) from None
            if shared:
                return [int(out) if type(out) is float and out.is_integer() else out]
            return [fresh(out)]
        outputs: list[Any] = []
        try:
            for out in self._code.gen(value, env):
                if self._bounded:
                    walk(out, env.ctl)
                if shared:
                    outputs.append(int(out) if type(out) is float and out.is_integer() else out)
                else:
                    outputs.append(fresh(out))
                if first:
                    break
                if len(outputs) > limits.max_outputs:
                    raise LimitExceededError(f"more than {limits.max_outputs} outputs", self.text)
        except JqError as err:
            raise self._failure(err, env) from None
        except LimitHit as err:
            raise LimitExceededError(str(err), self.text) from None
        return outputs

    def _failure(self, err: JqError, env: Env) -> ExpressionError:
        """The error jq reported; an untrusted program's error value is charged before it
        is written out (it may be as large as any output)."""
        if self._bounded:
            try:
                walk(err.value, env.ctl)
            except LimitHit as hit:
                return LimitExceededError(str(hit), self.text)
        return ExpressionError(error_message(err.value), self.text)


def _json_default(value: Any) -> Any:
    """YAML timestamps (PyYAML gives datetimes) as the RFC 3339 strings the API uses."""
    if isinstance(value, datetime.datetime):
        text = value.isoformat()
        return text[:-6] + "Z" if text.endswith("+00:00") else text
    if isinstance(value, datetime.date):
        return value.isoformat()
    raise TypeError(f"{type(value).__name__} is not JSON data")
