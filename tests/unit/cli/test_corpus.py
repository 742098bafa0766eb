"""Every file of the shared corpus goes through ``describe -f`` without a traceback."""

from __future__ import annotations

import pytest

from tests.corpus import CORPUS, corpus_params
from wlmap.cli._exits import ERROR
from wlmap.cli.main import main

FILES = sorted(
    p for p in CORPUS.rglob("*") if p.suffix in (".yaml", ".yml", ".json") and "crds" not in p.parts
)


@pytest.mark.parametrize("path", corpus_params(FILES))
def test_describe_never_crashes(path: object, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["describe", "-f", str(path)])
    _, err = capsys.readouterr()
    assert "unexpected" not in err, err
    assert "Traceback" not in err
    assert code != ERROR, err
