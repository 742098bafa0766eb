"""Start-up time of the ``wlmap`` command, cold process each time.

Runs ``wlmap --help`` and ``wlmap describe -f`` of one corpus JobSet (and a few more
commands) N times each, interleaved so load on the machine hits them alike, and prints
each median next to two baselines measured in the same run: ``python -c pass`` and
``python -c "import yaml, jq"``, the floor any Python command reading YAML with jq pays.
Targets: ``--help`` under 150 ms, ``describe -f`` of one JobSet under 300 ms.

Run: ``python benchmarks/cli_startup.py [--runs N]``
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "corpus"
JOBSET = CORPUS / "jobset" / "tpu-multislice-v6e-jax.yaml"
DYNAMO = CORPUS / "nvidia-dynamo" / "trtllm-disagg-multinode.yaml"
TARGETS_MS = {"wlmap --help": 150.0, "wlmap describe -f JOBSET": 300.0}


def wlmap() -> list[str]:
    """The installed console script beside this interpreter, or the module."""
    script = Path(sys.executable).with_name("wlmap")
    return [str(script)] if script.exists() else [sys.executable, "-m", "wlmap.cli"]


def commands() -> dict[str, list[str]]:
    cli = wlmap()
    return {
        "python -c pass": [sys.executable, "-c", "pass"],
        "python -c 'import yaml, jq'": [sys.executable, "-c", "import yaml, jq"],
        "wlmap --help": [*cli, "--help"],
        "wlmap describe -f JOBSET": [*cli, "describe", "-f", str(JOBSET)],
        "wlmap describe -f DYNAMO": [*cli, "describe", "-f", str(DYNAMO)],
        "wlmap get jobset -f JOBSET": [*cli, "get", "jobset", "-f", str(JOBSET)],
        "wlmap definitions list": [*cli, "definitions", "list"],
    }


def timed(command: list[str]) -> float:
    """Wall milliseconds of one child process."""
    start = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    return (time.perf_counter() - start) * 1000


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    todo = commands()
    for command in todo.values():  # warm the file cache; cold means a new process
        timed(command)
    samples: dict[str, list[float]] = {name: [] for name in todo}
    for _ in range(args.runs):
        for name, command in todo.items():
            samples[name].append(timed(command))
    medians = {name: statistics.median(values) for name, values in samples.items()}
    floor = medians["python -c pass"]
    print(f"{args.runs} cold runs each, median (min) wall time; JOBSET = {JOBSET.name}")
    for name, median in medians.items():
        target = TARGETS_MS.get(name)
        verdict = ""
        if target is not None:
            verdict = f"  target < {target:.0f} ms: {'met' if median < target else 'NOT met'}"
        print(
            f"{name:30} {median:7.1f} ms ({min(samples[name]):6.1f})  "
            f"x{median / floor:5.1f} of python -c pass{verdict}"
        )


if __name__ == "__main__":
    main()
