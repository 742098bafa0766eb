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
