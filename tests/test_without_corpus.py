"""A checkout without ../shared/corpus (a fresh clone): the suite collects without errors
and every test that needs the corpus skips, naming the file or folder it lacks."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
# Modules that read the corpus at collection or test time in each of the ways the suite
# does: objects in parameter lists, parameters per corpus file, CRDs, fixtures.
CORPUS_MODULES = (
    "tests/unit/workload/test_status.py::test_every_generic_status_is_reachable",
    "tests/unit/cli/test_corpus.py",
    "tests/catalog/test_corpus.py",
    "tests/catalog/test_crds.py",
    "tests/catalog/test_gpu_totals.py",
    "tests/unit/jq/test_agreement.py::test_native_agrees_on_corpus",
    "tests/unit/operator/test_rbac.py::test_plural_rule_matches_every_corpus_crd",
)


def pytest_without_corpus(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    absent = tmp_path / "no-corpus"
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-m", "not integration", *args],
        cwd=REPO,
        env={**os.environ, "WLMAP_TEST_CORPUS": str(absent)},
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


def test_the_whole_suite_collects_without_the_corpus(tmp_path: Path) -> None:
    done = pytest_without_corpus(tmp_path, "--collect-only", "-q")
    summary = done.stdout.strip().splitlines()[-1]
    assert done.returncode == 0, done.stdout[-3000:]
    assert "error" not in summary, done.stdout[-3000:]


def test_corpus_tests_skip_naming_what_is_missing(tmp_path: Path) -> None:
    done = pytest_without_corpus(tmp_path, "-q", "-rs", *CORPUS_MODULES)
    assert done.returncode == 0, done.stdout[-3000:]
    skips = [line for line in done.stdout.splitlines() if line.startswith("SKIPPED")]
    assert skips
    absent = str(tmp_path / "no-corpus")
    unexplained = [s for s in skips if not (absent in s and "is not available" in s)]
    assert unexplained == []


# A path to the shared folder spelt out in a test: parents[4] joined with shared and corpus,
# a string naming shared/corpus/crds, ../shared/traces and the like.
_OWN_PATH = re.compile(r"""/\s*["']shared["']|["'](\.\./)?shared/(corpus|traces)""")


def test_tests_reach_the_corpus_and_traces_only_through_their_fixtures() -> None:
    """A test that finds ../shared by a path of its own fails on a fresh clone instead of
    skipping with a reason; only tests/corpus.py and tests/traces.py may name the folder."""
    fixtures = {REPO / "tests" / name for name in ("corpus.py", "traces.py")}
    own = sorted(
        f"{path.relative_to(REPO)}:{number}"
        for path in (REPO / "tests").rglob("*.py")
        if path not in fixtures and path != Path(__file__).resolve()
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if _OWN_PATH.search(line.split("#", 1)[0])
    )
    assert own == []
