"""Runs libjq in a long-lived child process that can be killed when it overruns.

libjq holds the GIL and cannot be interrupted, so untrusted programs are evaluated in a
worker process with an address-space cap. The parent writes one JSON request per line and
waits for one JSON reply line; if none arrives in time the worker is killed (and started
again on the next request). A new worker first says it is ready: its start (a Python
interpreter importing libjq, which takes seconds on a loaded machine) is waited for on its
own and never counted against an evaluation's time limit.
"""

from __future__ import annotations

import json
import os
import resource
import select
import sys
import threading
from typing import IO, TYPE_CHECKING, Any

from wlmap.jq._libjq import LibjqError, OutputLimit, compile_program, run

if TYPE_CHECKING:
    import subprocess

_CACHE_SIZE = 512
_READY = b'{"ready": true}\n'


class WorkerTimeout(Exception):
    """The worker did not answer in time and was killed."""


class WorkerFailure(Exception):
    """The worker hit its memory cap or died."""


class Worker:
    """Parent-side handle of the worker process; safe to share between threads."""

    def __init__(self, memory_bytes: int, start_seconds: float = 60.0) -> None:
        self._memory_bytes = memory_bytes
        self._start_seconds = start_seconds
        self._proc: subprocess.Popen[bytes] | None = None
        self._lock = threading.Lock()

    def request(self, message: dict[str, Any], timeout: float) -> list[Any]:
        """Send one request; return the outputs or raise what the worker reported."""
        line = (json.dumps(message) + "\n").encode()
        with self._lock:
            proc = self._ensure()
            assert proc.stdin is not None
            assert proc.stdout is not None
            try:
                proc.stdin.write(line)
                proc.stdin.flush()
            except OSError:
                self._kill()
                raise WorkerFailure("the jq worker process exited") from None
            ready, _, _ = select.select([proc.stdout], [], [], timeout)
            if not ready:
                self._kill()
                raise WorkerTimeout(f"evaluation exceeded {timeout:g} seconds")
            reply = proc.stdout.readline()
            if not reply:
                self._kill()
                raise WorkerFailure(
                    "evaluation exceeded the jq worker's memory limit of "
                    f"{self._memory_bytes // 2**20} MiB (the worker process exited)"
                )
        answer = json.loads(reply)
        if "ok" in answer:
            outputs: list[Any] = answer["ok"]
            return outputs
        if "limit" in answer:
            if answer.get("kind") == "memory":
                raise WorkerFailure(answer["limit"])
            raise OutputLimit(answer["limit"])
        raise LibjqError(answer["error"], compile_error=bool(answer.get("compile")))

    def close(self) -> None:
        """Stop the worker process if it runs."""
        with self._lock:
            self._kill()

    def _ensure(self) -> subprocess.Popen[bytes]:
        if self._proc is None or self._proc.poll() is not None:
            import subprocess  # noqa: PLC0415 - start-up cost: only untrusted definitions start it

            env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in sys.path if p))
            self._proc = subprocess.Popen(
                [sys.executable, "-c", "from wlmap.jq._worker import main; main()"],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                env={**env, "WLMAP_JQ_WORKER_MEMORY": str(self._memory_bytes)},
            )
            assert self._proc.stdout is not None
            ready, _, _ = select.select([self._proc.stdout], [], [], self._start_seconds)
            if not ready or self._proc.stdout.readline() != _READY:
                self._kill()
                raise WorkerFailure(
                    f"the jq worker process did not start within {self._start_seconds:g} seconds"
                )
        return self._proc

    def _kill(self) -> None:
        proc, self._proc = self._proc, None
        if proc is None:
            return
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        for stream in (proc.stdin, proc.stdout):
            if stream is not None:
                stream.close()


def _answer(request: dict[str, Any], programs: dict[str, Any]) -> dict[str, Any]:
    text = request["text"]
    try:
        program = programs.get(text)
        if program is None:
            if len(programs) >= _CACHE_SIZE:
                programs.clear()
            program = programs[text] = compile_program(text)
        if request.get("compile_only"):
            return {"ok": []}
        outputs = run(program, request["input"], request["max"], request.get("first", False))
        return {"ok": outputs}
    except LibjqError as err:
        return {"error": err.message, "compile": err.compile_error}
    except OutputLimit as err:
        return {"limit": str(err)}
    except MemoryError:
        return {"limit": "evaluation exceeded the jq worker's memory limit", "kind": "memory"}


def _serve(stdin: IO[bytes], stdout: IO[bytes]) -> None:
    programs: dict[str, Any] = {}
    stdout.write(_READY)
    stdout.flush()
    for line in stdin:
        request = json.loads(line)
        reply = _answer(request, programs)
        try:
            data = json.dumps(reply)
        except ValueError:
            data = json.dumps({"error": "output is not representable as JSON"})
        except MemoryError:
            data = json.dumps({"limit": "the output exceeded the worker's memory limit"})
        most = request.get("max_bytes")
        if most is not None and len(data) > most:
            data = json.dumps({"limit": f"the outputs exceed {most} bytes of JSON"})
        stdout.write(data.encode() + b"\n")
        stdout.flush()


def main() -> None:
    """Entry point of the worker process."""
    memory = int(os.environ.get("WLMAP_JQ_WORKER_MEMORY", "0"))
    if memory > 0:
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    _serve(sys.stdin.buffer, sys.stdout.buffer)
