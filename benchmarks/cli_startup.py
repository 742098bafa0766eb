"""Start-up time of the ``wlmap`` command, cold process each time.

Runs ``wlmap --help`` and ``wlmap describe -f`` of one corpus Job and one JobSet (and a
few more commands) N times each, interleaved so load on the machine hits them alike, and prints
each median next to two baselines measured in the same run: ``python -c pass`` and
``python -c "import yaml, jq"``, the floor any Python command reading YAML with jq pays.
Targets: ``--help`` under 150 ms, ``describe -f`` of one small Job under 150 ms of CPU,
of one JobSet under 300 ms.

Run: ``python benchmarks/cli_startup.py [--runs N]``
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "corpus"
JOB = CORPUS / "core-workloads" / "kueue-tas-sample-job-required.yaml"
JOBSET = CORPUS / "jobset" / "tpu-multislice-v6e-jax.yaml"
DYNAMO = CORPUS / "nvidia-dynamo" / "trtllm-disagg-multinode.yaml"
TARGETS_MS = {
    "wlmap --help": 150.0,
    "wlmap describe -f JOB": 150.0,
    "wlmap describe -f JOBSET": 300.0,
}


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
        "wlmap describe -f JOB": [*cli, "describe", "-f", str(JOB)],
        "wlmap describe -f JOBSET": [*cli, "describe", "-f", str(JOBSET)],
        "wlmap describe -f DYNAMO": [*cli, "describe", "-f", str(DYNAMO)],
        "wlmap get jobset -f JOBSET": [*cli, "get", "jobset", "-f", str(JOBSET)],
        "wlmap definitions list": [*cli, "definitions", "list"],
    }


# Children write and use compiled bytecode, as an installed program does (a run with
# PYTHONDONTWRITEBYTECODE would compile every module at every start).
CHILD_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def timed(command: list[str]) -> tuple[float, float]:
    """Wall and CPU (user + system) milliseconds of one child process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, env=CHILD_ENV)
    wall = (time.perf_counter() - start) * 1000
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000
    return wall, cpu


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    todo = commands()
    for command in todo.values():  # warm the file cache and write bytecode; cold = new process
        timed(command)
    walls: dict[str, list[float]] = {name: [] for name in todo}
    cpus: dict[str, list[float]] = {name: [] for name in todo}
    for _ in range(args.runs):
        for name, command in todo.items():
            wall, cpu = timed(command)
            walls[name].append(wall)
            cpus[name].append(cpu)
    wall_median = {name: statistics.median(values) for name, values in walls.items()}
    cpu_median = {name: statistics.median(values) for name, values in cpus.items()}
    floor = wall_median["python -c pass"]
    cpu_floor = cpu_median["python -c pass"]
    print(
        f"{args.runs} cold runs each; medians in ms (wall, and CPU user+system, which "
        f"suffers less from a busy machine); JOB = {JOB.name}, JOBSET = {JOBSET.name}"
    )
    print(f"{'':30} {'wall':>7} {'cpu':>7} {'wall / pass':>12} {'cpu / pass':>11}")
    for name, median in wall_median.items():
        target = TARGETS_MS.get(name)
        verdict = ""
        if target is not None:
            cpu = cpu_median[name]
            verdict = (
                f"  target < {target:.0f}: wall {'met' if median < target else 'NOT met'}, "
                f"cpu {'met' if cpu < target else 'NOT met'}"
            )
        print(
            f"{name:30} {median:7.1f} {cpu_median[name]:7.1f} {median / floor:12.1f} "
            f"{cpu_median[name] / cpu_floor:11.1f}{verdict}"
        )


if __name__ == "__main__":
    main()
