"""What a module pulls in when imported: reading files never loads the cluster client, and
the command line starts without the models, the engine or the catalog until a command
needs them. Each check runs in a fresh interpreter, where nothing is imported yet."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.corpus import corpus_path

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


@pytest.mark.parametrize("package", ["wlmap", "wlmap.definitions"])
def test_every_public_name_resolves_from_its_home(package: str) -> None:
    loaded = loaded_after(
        f"import {package} as p\nassert set(p.__all__) <= set(dir(p))\n"
        "assert all(getattr(p, name) is not None for name in p.__all__)"
    )
    assert package in loaded


def test_lazy_names_are_the_real_objects() -> None:
    import wlmap  # noqa: PLC0415 - the package under test, imported here on purpose
    from wlmap.definitions.document import Definition  # noqa: PLC0415
    from wlmap.workload import interpret  # noqa: PLC0415

    assert wlmap.interpret is interpret
    assert wlmap.Definition is Definition
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        _ = wlmap.nothing  # type: ignore[attr-defined]  # the missing name under test


def test_importing_the_gvk_loads_no_validation_and_no_engine() -> None:
    loaded = loaded_after("import wlmap.definitions.gvk")
    assert "wlmap.definitions.validation" not in loaded
    assert "wlmap.jq" not in loaded


def test_help_imports_no_command_and_no_library() -> None:
    loaded = loaded_after(
        "from wlmap.cli.main import main\ntry:\n    main(['--help'])\nexcept SystemExit:\n    pass"
    )
    assert not {n for n in loaded if n.startswith("wlmap.cli.commands.")}
    assert not loaded & {"pydantic", "yaml", "jq", *CLUSTER_CLIENT}
    assert not {n for n in loaded if n.startswith(("wlmap.definitions", "wlmap.workload"))}


@pytest.mark.parametrize("command", ["describe", "get jobset", "explain"])
def test_commands_on_files_never_load_the_cluster_client(command: str) -> None:
    jobset = corpus_path("jobset/tpu-multislice-v6e-jax.yaml")
    loaded = loaded_after(
        "import contextlib, io\n"
        "from wlmap.cli.main import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    assert main([*{command.split()!r}, '-f', {str(jobset)!r}]) == 0"
    )
    assert not loaded & set(CLUSTER_CLIENT)


def test_describing_a_builtin_kind_loads_neither_libjq_nor_the_untrusted_machinery() -> None:
    # the catalog's Job programs all run natively in process: no libjq binding, no regex
    # engine with timeouts, no worker process
    job = corpus_path("core-workloads/kueue-tas-sample-job-required.yaml")
    loaded = loaded_after(
        "import contextlib, io\n"
        "from wlmap.cli.main import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    assert main(['describe', '-f', {str(job)!r}]) == 0"
    )
    assert "wlmap.workload" in loaded
    assert not loaded & {"jq", "regex", "subprocess"}
