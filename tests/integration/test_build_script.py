"""scripts/build-apiserver.sh: reuse, the lock against concurrent builds, and progress.

A fake ``go`` stands in for the toolchain (it records its calls and writes executables
where ``go build -o`` points), so no real build runs and the cache is a temporary folder.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.integration.testcluster import (
    BUILD_SCRIPT,
    MISSING_GO,
    REPO,
    BuildUnavailable,
    build_binaries,
)

pytestmark = pytest.mark.skipif(
    shutil.which("bash") is None or shutil.which("flock") is None,
    reason="the build script needs bash and flock",
)
FOLDER = "kubernetes-v1.36.3-etcd-v3.6.16"  # the script's default versions
SAFETY = 60.0  # seconds before a wait is reported as stuck (a failure, not a measurement)

FAKE_GO = """#!/usr/bin/env bash
# records each call; `mod download -json` names an empty go.mod; `list -m` names the
# module folder FAKE_GO_MODULE_DIR; `build -o X` waits until the release file exists, then
# writes X (or fails when FAKE_GO_FAIL is set)
echo "$*" >> "$FAKE_GO_CALLS"
case "$1 $2" in
    "mod download") echo "  \\"GoMod\\": \\"$FAKE_GO_MOD\\"," ;;
    "list -m") echo "${FAKE_GO_MODULE_DIR:-}" ;;
esac
if [[ "$1" == build && -n "${FAKE_GO_FAIL:-}" ]]; then
    echo "fake compile error" >&2
    exit 1
fi
if [[ "$1" == build ]]; then
    while [[ ! -e "$FAKE_GO_RELEASE" ]]; do sleep 0.05; done
    while [[ $# -gt 0 && "$1" != -o ]]; do shift; done
    printf '#!/bin/sh\\n' > "$2" && chmod +x "$2"
fi
"""


@dataclass
class Cache:
    root: Path
    calls: Path
    release: Path
    env: dict[str, str]

    @property
    def out(self) -> Path:
        return self.root / FOLDER

    def builds(self) -> list[str]:
        lines = self.calls.read_text().splitlines() if self.calls.exists() else []
        return [line for line in lines if line.startswith("build ")]

    def start(self, log: Path) -> subprocess.Popen[str]:
        """A run of the script in the background, its stderr in ``log``."""
        with log.open("w") as stderr:
            return subprocess.Popen(
                ["bash", str(BUILD_SCRIPT)],
                env=self.env,
                stdout=subprocess.PIPE,
                stderr=stderr,
                text=True,
            )

    def run(self, path: str | None = None) -> subprocess.CompletedProcess[str]:
        """A run of the script to its end (with ``path`` as PATH when given)."""
        return subprocess.run(
            [shutil.which("bash") or "bash", str(BUILD_SCRIPT)],
            env={**self.env, "PATH": path or self.env["PATH"]},
            capture_output=True,
            text=True,
            timeout=SAFETY,
            check=False,
        )


@pytest.fixture
def cache(tmp_path: Path) -> Cache:
    """A cache root of its own, with the fake go first on PATH."""
    tools = tmp_path / "bin"
    tools.mkdir()
    (tools / "go").write_text(FAKE_GO)
    (tools / "go").chmod(0o755)
    (tmp_path / "go.mod").write_text("module k8s.io/kubernetes\n")
    calls, release = tmp_path / "go-calls", tmp_path / "release"
    env = {
        **{k: v for k, v in os.environ.items() if k not in ("KUBERNETES_VERSION", "ETCD_VERSION")},
        "PATH": f"{tools}{os.pathsep}{os.environ['PATH']}",
        "WLMAP_TESTBIN_CACHE": str(tmp_path / "testbin"),
        "FAKE_GO_CALLS": str(calls),
        "FAKE_GO_MOD": str(tmp_path / "go.mod"),
        "FAKE_GO_RELEASE": str(release),
        "WLMAP_BUILD_HEARTBEAT": "0.1",
    }
    return Cache(tmp_path / "testbin", calls, release, env)


def built(folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for name in ("kube-apiserver", "etcd"):
        (folder / name).write_text("#!/bin/sh\n")
        (folder / name).chmod(0o755)


def wait_until(check: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + SAFETY
    while not check():
        assert time.monotonic() < deadline, f"still waiting for {what}"
        time.sleep(0.05)


@contextmanager
def lock_held(cache: Cache) -> Iterator[None]:
    """The cache root's lock, held the way another run of the script holds it."""
    cache.root.mkdir(parents=True, exist_ok=True)
    with (cache.root / "build.lock").open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


def test_built_binaries_are_reused_without_building(cache: Cache) -> None:
    built(cache.out)
    done = cache.run()
    assert (done.returncode, done.stdout, done.stderr) == (0, f"{cache.out}\n", "")
    assert not cache.calls.exists()


def test_a_run_waits_for_the_lock_and_uses_what_the_holder_built(
    cache: Cache, tmp_path: Path
) -> None:
    log = tmp_path / "waiting.log"
    with lock_held(cache):
        waiting = cache.start(log)
        wait_until(lambda: "waiting" in log.read_text(), "the run to say it waits")
        assert waiting.poll() is None
        built(cache.out)  # what the holder's build leaves behind
    out, _ = waiting.communicate(timeout=SAFETY)
    assert (waiting.returncode, out) == (0, f"{cache.out}\n")
    assert f"another build holds {cache.root / 'build.lock'}" in log.read_text()
    assert not cache.calls.exists()


def test_two_concurrent_runs_build_once(cache: Cache, tmp_path: Path) -> None:
    first = cache.start(tmp_path / "first.log")
    wait_until(lambda: len(cache.builds()) == 1, "the first run to start compiling")
    second_log = tmp_path / "second.log"
    second = cache.start(second_log)
    wait_until(lambda: "waiting" in second_log.read_text(), "the second run to wait")
    first_log = tmp_path / "first.log"
    wait_until(lambda: "compiling: still running" in first_log.read_text(), "a heartbeat")
    cache.release.touch()
    outputs = [run.communicate(timeout=SAFETY)[0] for run in (first, second)]
    assert [first.returncode, second.returncode] == [0, 0]
    assert outputs == [f"{cache.out}\n"] * 2
    assert [call.split(" -o ")[1].split()[0] for call in cache.builds()] == [
        f"{cache.out}/kube-apiserver.partial",
        f"{cache.out}/etcd.partial",
    ]
    progress = first_log.read_text()
    for step in ("kube-apiserver: compiling: done in", "etcd: compiling: done in"):
        assert step in progress
    # the work folder is removed; the lock file stays for the next run
    assert sorted(p.name for p in cache.root.iterdir()) == ["build.lock", FOLDER]


@pytest.fixture
def without_go(tmp_path: Path) -> str:
    """A PATH with what the script needs before it looks for go, and no go."""
    tools = tmp_path / "no-go"
    tools.mkdir()
    for tool in ("bash", "mkdir", "flock"):
        (tools / tool).symlink_to(shutil.which(tool) or tool)
    return str(tools)


def test_missing_go_is_its_own_exit_status(cache: Cache, without_go: str) -> None:
    done = cache.run(path=without_go)
    assert done.returncode == MISSING_GO
    assert "the go command is needed" in done.stderr


def test_the_harness_passes_the_progress_on_and_returns_the_folder(
    cache: Cache, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, value in cache.env.items():
        monkeypatch.setenv(name, value)
    cache.release.touch()
    lines: list[str] = []
    assert build_binaries(progress=lines.append) == cache.out
    steps = [line.split("] ", 1)[1] for line in lines]
    assert "kube-apiserver: compiling" in steps
    assert steps[-1] == "done"
    assert build_binaries(progress=lines.append) == cache.out  # reused: nothing more said
    assert len(lines) == len(steps)


def test_the_harness_reports_missing_go_apart_from_failures(
    cache: Cache, without_go: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, value in {**cache.env, "PATH": without_go}.items():
        monkeypatch.setenv(name, value)
    with pytest.raises(BuildUnavailable, match="need Go"):
        build_binaries(progress=lambda _: None)


def test_a_failed_build_is_reported_with_its_output_and_leaves_nothing_half_built(
    cache: Cache, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, value in {**cache.env, "FAKE_GO_FAIL": "1"}.items():
        monkeypatch.setenv(name, value)
    with pytest.raises(RuntimeError, match="fake compile error"):
        build_binaries(progress=lambda _: None)
    assert sorted(p.name for p in cache.root.iterdir()) == ["build.lock", FOLDER]
    assert list(cache.out.iterdir()) == []
    monkeypatch.delenv("FAKE_GO_FAIL")
    cache.release.touch()
    assert build_binaries(progress=lambda _: None) == cache.out  # the lock was released


PROBE = """
from tests.integration.conftest import terminal

def test_probe(pytestconfig):
    write = terminal(pytestconfig)
    assert write is not None
    write("build-apiserver: [00:00] shown while the output is captured")
"""


def test_the_fixture_shows_progress_on_the_terminal_while_output_is_captured(
    tmp_path: Path,
) -> None:
    # the cluster fixture hands this writer to build_binaries; a test that passes shows no
    # captured output, so the line is on the terminal only if it went past the capture
    probe = tmp_path / "test_probe.py"
    probe.write_text(PROBE)
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]
    done = subprocess.run(
        [*command, "--rootdir", str(tmp_path), str(probe)],
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        capture_output=True,
        text=True,
        timeout=SAFETY,
        check=False,
    )
    assert done.returncode == 0, done.stdout
    assert "build-apiserver: [00:00] shown while the output is captured" in done.stdout
