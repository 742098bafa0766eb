"""What a module pulls in when imported: reading files never loads the cluster client, and
the command line starts without the models, the engine or the catalog until a command
needs them. Each check runs in a fresh interpreter, where nothing is imported yet."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

CLUSTER_CLIENT = ("kr8s", "httpx", "kopf")


def loaded_after(code: str) -> set[str]:
    """The top-level packages and wlmap modules imported after running ``code``."""
    probe = f"{code}\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))"
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    )
    names = json.loads(result.stdout.splitlines()[-1])
    return {n for n in names if n.startswith("wlmap")} | {n.split(".")[0] for n in names}


@pytest.mark.parametrize(
    "module", ["wlmap.sources.workloads", "wlmap.sources.entries", "wlmap.views.tree"]
)
def test_reading_files_never_loads_the_cluster_client(module: str) -> None:
    loaded = loaded_after(f"import {module}")
    assert not loaded & set(CLUSTER_CLIENT)


def test_import_wlmap_loads_nothing_until_a_name_is_used() -> None:
    loaded = loaded_after("import wlmap")
    assert {n for n in loaded if n.startswith("wlmap.")} == set()
    assert "pydantic" not in loaded


def test_every_public_name_resolves_from_its_home() -> None:
    import wlmap  # noqa: PLC0415 - the package under test, imported here on purpose
    from wlmap.workload import interpret  # noqa: PLC0415

    assert wlmap.interpret is interpret
    assert set(wlmap.__all__) <= set(dir(wlmap))
    assert all(getattr(wlmap, name) is not None for name in wlmap.__all__)
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        _ = wlmap.nothing  # type: ignore[attr-defined]  # the missing name under test


def test_help_imports_no_command_and_no_library() -> None:
    loaded = loaded_after(
        "from wlmap.cli.main import main\ntry:\n    main(['--help'])\nexcept SystemExit:\n    pass"
    )
    assert not {n for n in loaded if n.startswith("wlmap.cli.commands.")}
    assert not loaded & {"pydantic", "yaml", "jq", *CLUSTER_CLIENT}
    assert not {n for n in loaded if n.startswith(("wlmap.definitions", "wlmap.workload"))}
