"""Instructions per object of the map and of the adapters in ``interpret.py``, under callgrind.

Time on a shared machine moves by 10% between runs; instruction counts do not. Each side
runs in its own process under ``valgrind --tool=callgrind``, which counts only the timed
rounds (they run inside ``functools.reduce``, the function collection is toggled on), with
a fixed hash seed. Prints instructions per object and their ratio per kind.

Run: ``python benchmarks/interpret_instructions.py [--rounds N] [KIND ...]`` (needs valgrind;
a few minutes per kind).
"""

from __future__ import annotations

import argparse
import functools
import os
import re
import subprocess
import sys
from typing import Any

from interpret import ADAPTERS, load

from wlmap.app import definitions_in_use
from wlmap.workload import interpret, prepare


def run_side(kind: str, side: str, rounds: int) -> None:
    """The measured process: ``rounds`` passes of one side over the kind's objects."""
    objs = load(kind)
    registry = definitions_in_use()
    pairs = [(prepare(registry.for_object(o)), o) for o in objs]
    adapter = ADAPTERS[kind]

    def run_map() -> None:
        for definition, obj in pairs:
            _ = interpret(definition, obj).gang_groups

    def run_adapter() -> None:
        for obj in objs:
            adapter(obj)

    action = run_map if side == "map" else run_adapter
    for _ in range(3):  # warm: compiled definitions, generated readers, caches
        action()
    functools.reduce(lambda _acc, _item: action(), range(rounds), None)


def count(kind: str, side: str, rounds: int) -> int:
    """Instructions of ``rounds`` passes of one side, as callgrind counts them."""
    command = [
        "valgrind",
        "--tool=callgrind",
        "--collect-atstart=no",
        "--toggle-collect=functools_reduce",
        "--callgrind-out-file=/dev/null",
        sys.executable,
        __file__,
        "--side",
        side,
        "--rounds",
        str(rounds),
        kind,
    ]
    env: dict[str, Any] = {**os.environ, "PYTHONHASHSEED": "0"}
    done = subprocess.run(command, capture_output=True, text=True, env=env, check=True)
    found = re.search(r"Collected : (\d+)", done.stderr)
    if found is None:
        raise SystemExit(f"no instruction count in valgrind's output:\n{done.stderr[-2000:]}")
    return int(found.group(1))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=10, help="passes over the objects")
    parser.add_argument("--side", choices=("map", "adapter"), help=argparse.SUPPRESS)
    parser.add_argument("kinds", nargs="*", default=list(ADAPTERS))
    args = parser.parse_args()
    if args.side:
        run_side(args.kinds[0], args.side, args.rounds)
        return
    print(f"{'kind':<12} {'map instr/wl':>13} {'adapter instr/wl':>17} {'ratio':>6}")
    for kind in args.kinds:
        per = len(load(kind)) * args.rounds
        mapped = count(kind, "map", args.rounds) / per
        baseline = count(kind, "adapter", args.rounds) / per
        print(f"{kind:<12} {mapped:>13,.0f} {baseline:>17,.0f} {mapped / baseline:>6.3f}")


if __name__ == "__main__":
    main()
