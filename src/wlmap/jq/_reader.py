"""The least-overhead way to evaluate one program many times: :meth:`Program.reader`."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, Protocol

from wlmap.errors import LimitExceededError
from wlmap.jq._bounded import walk
from wlmap.jq._native_base import NO_VARIABLES, Code, Ctl, Env, Session
from wlmap.jq._values import JqError, LimitHit, Unsupported
from wlmap.jq.limits import Limits


class Reader(Protocol):
    """``Program.all(value, shared=True)`` as :meth:`Program.reader` gives it."""

    def __call__(self, value: Any, session: Session | None = None) -> list[Any]: ...


def native_reader(
    code: Code,
    limits: Limits,
    full: Callable[[Any], list[Any]],
    *,
    bounded: bool = False,
    text: str = "",
) -> Reader:
    """Evaluate ``code`` directly; errors, limits and unsupported cases go to ``full``,
    the complete path, which reports them as :meth:`Program.all` does. ``bounded``
    (untrusted programs) charges the outputs to the size budget as well."""
    if bounded:
        return _charged_reader(code, limits, full, text)
    timeout = limits.timeout_seconds
    max_outputs = limits.max_outputs
    one, gen = code.one, code.gen

    def read(value: Any, session: Session | None = None) -> list[Any]:
        if session is None:
            env = Env(NO_VARIABLES, Ctl(time.monotonic() + timeout))
        else:  # the session's environment, with this evaluation's deadline
            env = session.env
            env.ctl.deadline = time.monotonic() + timeout
            env.ctl.steps = 0
        try:
            if one is not None:
                out = one(value, env)
                return [int(out) if type(out) is float and out.is_integer() else out]
            outputs = []
            for out in gen(value, env):
                outputs.append(int(out) if type(out) is float and out.is_integer() else out)
                if len(outputs) > max_outputs:
                    break
            else:
                return outputs
        except (JqError, LimitHit, Unsupported, RecursionError):
            pass
        return full(value)

    return read


def _charged_reader(
    code: Code, limits: Limits, full: Callable[[Any], list[Any]], text: str
) -> Reader:
    """The reader of an untrusted program. A limit it hits is reported at once: running
    the program again on the complete path would spend the whole budget a second time."""
    timeout, max_outputs, cells = limits.timeout_seconds, limits.max_outputs, limits.max_cells
    gen = code.gen

    def read(value: Any, session: Session | None = None) -> list[Any]:
        ctl = Ctl(time.monotonic() + timeout, cells)
        # shared results are kept only within one session, whose memo this reuses
        env = Env(NO_VARIABLES, ctl, None if session is None else session.env.memo)
        try:
            outputs = []
            for out in gen(value, env):
                walk(out, ctl)
                outputs.append(int(out) if type(out) is float and out.is_integer() else out)
                if len(outputs) > max_outputs:
                    raise LimitExceededError(f"more than {max_outputs} outputs", text)
            return outputs
        except LimitHit as err:
            raise LimitExceededError(str(err), text) from None
        except (JqError, Unsupported, RecursionError):
            pass
        return full(value)

    return read
