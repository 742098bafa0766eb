"""The operator image's Containerfile, checked statically (no container engine runs where
the tests do): a base pinned by digest, dependencies from the hashed lock file only, no
installer in the final stage, a non-root user; and the lock covers what the package needs."""

from __future__ import annotations

import re
import sys
import tomllib
from importlib import metadata
from pathlib import Path

import pytest
from packaging.markers import default_environment
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[3]
CONTAINERFILE = ROOT / "Containerfile"
LOCK = ROOT / "requirements" / "operator.lock"
PINNED = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^ ;\\]+)")
DIGEST = re.compile(r"@sha256:[0-9a-f]{64}\b")


def _instructions() -> list[str]:
    """The Containerfile's instructions, continuation lines joined, comments left out."""
    joined = re.sub(r"\\\n\s*", " ", CONTAINERFILE.read_text(encoding="utf-8"))
    return [line.strip() for line in joined.splitlines() if line.strip() and line[0] != "#"]


def _stages() -> list[list[str]]:
    stages: list[list[str]] = []
    for line in _instructions():
        if line.upper().startswith("FROM "):
            stages.append([])
        stages[-1].append(line)
    return stages


def _lock() -> dict[str, str]:
    """Name -> pinned version of every package in the lock; each must carry hashes."""
    pins: dict[str, str] = {}
    text = LOCK.read_text(encoding="utf-8")
    for block in re.split(r"\n(?=[A-Za-z0-9])", text):
        found = PINNED.match(block)
        if found is None:
            continue
        assert re.search(r"--hash=sha256:[0-9a-f]{64}", block), f"{found[1]} has no hash"
        pins[canonicalize_name(found[1])] = found[2]
    return pins


def test_every_stage_starts_from_an_image_pinned_by_digest() -> None:
    stages = _stages()
    assert len(stages) >= 2, "a build stage and a runtime stage"
    for stage in stages:
        base = stage[0].split()[1]
        assert DIGEST.search(base), f"not pinned by digest: {stage[0]}"
        assert base.startswith("python:3.11-slim@"), stage[0]


def test_dependencies_come_from_the_lock_with_hashes_only() -> None:
    build = " ".join(_stages()[0])
    installs = re.findall(r"pip install[^&]*", build)
    from_lock = [i for i in installs if "operator.lock" in i]
    assert from_lock, "no install from requirements/operator.lock"
    for option in ("--require-hashes", "--no-deps", "--only-binary :all:"):
        assert option in from_lock[0], option
    others = [i for i in installs if i not in from_lock]
    assert all("--no-deps" in i for i in others), others  # wlmap itself, nothing fetched


def test_the_runtime_stage_has_no_installer_and_runs_as_a_user() -> None:
    runtime = _stages()[-1]
    text = " ".join(runtime)
    assert "pip install" not in text and "apt-get install" not in text
    assert re.search(r"pip uninstall --yes pip setuptools wheel", text)
    assert "COPY --from=build /opt/wlmap /opt/wlmap" in runtime
    (user,) = [line for line in runtime if line.startswith("USER ")]
    uid = user.split()[1].split(":")[0]
    assert uid.isdigit() and int(uid) != 0


def test_the_lock_pins_every_dependency_of_the_operator_extra() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    direct = [Requirement(r) for r in project["dependencies"]]
    direct += [Requirement(r) for r in project["optional-dependencies"]["operator"]]
    pins = _lock()
    for requirement in direct:
        name = canonicalize_name(requirement.name)
        assert name in pins, f"{requirement.name} is not in {LOCK.name}"
        assert requirement.specifier.contains(pins[name], prereleases=True), (
            f"{requirement}: locked at {pins[name]}"
        )


def test_the_lock_covers_the_installed_dependency_closure() -> None:
    """Every package the direct dependencies pull in (as installed here, on Linux and
    Python 3.11, the image's platform) is in the lock."""
    if not sys.platform.startswith("linux"):
        pytest.skip("the image is Linux; markers evaluate for this platform")
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    environment: dict[str, str] = {k: str(v) for k, v in default_environment().items()}
    environment["python_version"] = "3.11"

    def needed(requirement: Requirement, extras: set[str]) -> bool:
        marker = requirement.marker
        return marker is None or any(
            marker.evaluate({**environment, "extra": extra}) for extra in {"", *extras}
        )

    wanted = [Requirement(r) for r in project["dependencies"]]
    wanted += [Requirement(r) for r in project["optional-dependencies"]["operator"]]
    pins = _lock()
    seen: set[str] = set()
    while wanted:
        requirement = wanted.pop()
        name = canonicalize_name(requirement.name)
        if name in seen:
            continue
        seen.add(name)
        assert name in pins, f"{name} (needed by the operator) is not in {LOCK.name}"
        requires = [Requirement(r) for r in metadata.requires(requirement.name) or ()]
        wanted.extend(r for r in requires if needed(r, set(requirement.extras)))
    assert len(seen) > 10  # the walk went past the direct dependencies
