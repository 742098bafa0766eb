"""The process-wide engines: one for the built-in catalog, one for everything else.

Sharing an engine means each expression is parsed and compiled once per process. The
trusted engine evaluates only the definitions shipped with wlmap (their cost is known and
benchmarked); every other definition (read from a cluster, from files the user names, or
built by a library user) runs on the untrusted engine, bounded in time, memory and output
size whichever evaluator runs it (decision 10).
"""

from __future__ import annotations

import threading

from wlmap.jq.engine import Engine

_LOCK = threading.Lock()
_TRUSTED: Engine | None = None
_UNTRUSTED: Engine | None = None


def default_engine() -> Engine:
    """The in-process engine for the built-in catalog's definitions: native evaluation
    without a size budget and libjq in this process."""
    global _TRUSTED  # noqa: PLW0603 - one compile cache per process
    with _LOCK:
        if _TRUSTED is None:
            _TRUSTED = Engine()
        return _TRUSTED


def untrusted_engine() -> Engine:
    """The engine for every definition not shipped with wlmap: ``Engine(isolated=True)``,
    whose libjq runs in a worker process (started when first needed)."""
    global _UNTRUSTED  # noqa: PLW0603 - one worker process per program
    with _LOCK:
        if _UNTRUSTED is None:
            _UNTRUSTED = Engine(isolated=True)
        return _UNTRUSTED
