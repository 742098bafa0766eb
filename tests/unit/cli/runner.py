"""Running the CLI in-process and capturing what it prints."""

from __future__ import annotations

from pathlib import Path

import pytest

from wlmap.cli.main import main

ROOT = Path(__file__).resolve().parents[3]
EXAMPLES = ROOT / "src" / "wlmap" / "examples"


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """Exit code, stdout and stderr of ``wlmap ARGS``."""
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err
