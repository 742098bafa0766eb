"""Gang placement quality on four topologies at loads 0.6, 0.8 and 1.0, per policy.

The topologies are the Lingjun Clos (8 GPUs per host assumed), a GB200-like cluster of 4
blocks, Kueue's TAS performance shape (8 GPUs per node assumed) and Tiresias n256g8; the
jobs are the SYNTHETIC Philly/Gavel mix with Poisson arrivals (wlmap.placement.gangs
.jobmix). Every placement is checked independently (verify mode). Per scenario and load,
each policy's mean over seeds of: span, locality and cross-domain share at the finest
level (mean and p95), communication cost (mean, p95), required constraints satisfied,
admission delay p50/p95, GPU occupancy and whole free finest-level domains; and its cost
as a ratio to the lowest cost of the other policies in the same run.

Also per policy: the communication cost over multi-pod gangs only (a single pod costs 0
anywhere, so it hides the gaps between policies).

Ten seeds by default: at load 0.6, where policies that fill partly used domains first
place nearly alike, three seeds differ from each other by more than those policies do
(docs/placement/gangs.md). Rows are written after each scenario, so a long run that is
stopped keeps the scenarios it finished.

Run: ``python benchmarks/placement_gangs.py [--smoke] [--seeds 10] [--hours 24]
[--scenarios lingjun,gb200] [--policies wlmap,volcano] [--loads 0.8] [--out FILE]``
(``--smoke``: 2 simulated hours, one seed). Rows go to ``benchmarks/results/``.
"""

from __future__ import annotations

import argparse
import datetime
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from _results import write_rows

from wlmap.placement.gangs import (
    GANG_POLICIES,
    JobMix,
    Scenario,
    describe,
    gb200,
    kueue_tas,
    lingjun,
    make_gang_policy,
    run_row,
    simulate_gangs,
    summarise,
    synthetic_jobs,
    tiresias,
)

RESULTS = Path(__file__).resolve().parent / "results"
TRACES = Path(__file__).resolve().parents[2] / "shared" / "traces"
LOADS = (0.6, 0.8, 1.0)
SHOWN = (
    ("span", "span_mean"),
    ("span95", "span_p95"),
    ("xspan", "excess_span_mean"),
    ("local", "locality_mean"),
    ("cross", "cross_domain_mean"),
    ("cost", "cost_mean"),
    ("cost95", "cost_p95"),
    ("multi", "multi_pod_cost_mean"),
    ("req%", "required_satisfied_pct"),
    ("wait50", "delay_p50_s"),
    ("wait95", "delay_p95_s"),
    ("occ%", "occupancy_pct"),
    ("whole", "whole_free_domains"),
)


def scenarios(names: list[str]) -> list[Scenario]:
    made: dict[str, Callable[[], Scenario]] = {
        "lingjun": lambda: lingjun(TRACES / "lingjun" / "topo.csv"),
        "gb200": lambda: gb200(blocks=4),
        "kueue-tas": kueue_tas,
        "n256g8": lambda: tiresias(TRACES / "tiresias" / "n256g8.csv"),
    }
    return [made[name]() for name in names]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--smoke", action="store_true", help="2 hours, one seed")
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--hours", type=float, default=24.0)
    parser.add_argument("--first-seed", type=int, default=1, help="seeds run from here")
    parser.add_argument("--scenarios", default="lingjun,gb200,kueue-tas,n256g8")
    parser.add_argument("--policies", default=",".join(GANG_POLICIES))
    parser.add_argument("--loads", default=",".join(f"{load:g}" for load in LOADS))
    parser.add_argument("--out", help="file stem under benchmarks/results/")
    args = parser.parse_args()
    hours, seeds = (2.0, 1) if args.smoke else (args.hours, args.seeds)
    if not TRACES.exists():
        print(f"{TRACES} is not available", file=sys.stderr)
        return 1
    policies = args.policies.split(",")
    unknown = [name for name in policies if name not in GANG_POLICIES]
    if unknown:
        print(
            f"unknown policies {unknown}; expected some of {list(GANG_POLICIES)}", file=sys.stderr
        )
        return 2
    loads = [float(load) for load in args.loads.split(",")]
    stem = args.out or "placement_gangs" + ("-smoke" if args.smoke else "")
    print(f"policies: {', '.join(policies)}")
    rows: list[dict[str, Any]] = []
    started = time.perf_counter()
    for scenario in scenarios(args.scenarios.split(",")):
        print(scenario.describe())
        print("  " + describe(JobMix(load=loads[0], hours=hours), scenario))
        for load in loads:
            mix = JobMix(load=load, hours=hours)
            for seed in range(args.first_seed, args.first_seed + seeds):
                jobs = synthetic_jobs(scenario, mix, seed)
                for name in policies:
                    policy = make_gang_policy(name, seed=seed, weights=scenario.weights)
                    run = simulate_gangs(scenario, policy, jobs, hours=hours, verify=True)
                    row = run_row(run, seed=seed, load=load, level=scenario.topology.levels[-1])
                    rows.append({**row, "policy": name})
        write(rows, stem)  # so far: a stopped run keeps the scenarios it finished
    print(f"{len(rows)} runs in {time.perf_counter() - started:.0f} s\n")
    show(summarise(rows))
    write(rows, stem)
    return 0


def show(summary: list[dict[str, Any]]) -> None:
    by_case: dict[tuple[str, float], list[dict[str, Any]]] = {}
    for entry in summary:
        by_case.setdefault((entry["scenario"], entry["load"]), []).append(entry)
    header = (
        f"{'policy':<18}"
        + "".join(f"{label:>8}" for label, _ in SHOWN)
        + f"{'cost/best other':>16}"
    )
    for (scenario, load), entries in by_case.items():
        print(f"{scenario} at load {load:g} ({entries[0]['runs']} seeds)")
        print(header)
        for entry in entries:
            others = [
                e["cost_mean"] for e in entries if e is not entry and e["cost_mean"] is not None
            ]
            ratio = (
                f"{entry['cost_mean'] / min(others):16.2f}"
                if others and entry["cost_mean"] is not None and min(others) > 0
                else f"{'-':>16}"
            )
            cells = "".join(_cell(entry[key]) for _, key in SHOWN)
            print(f"{entry['policy']:<18}{cells}{ratio}")
        print()


def _cell(value: float | None) -> str:
    return f"{'-':>8}" if value is None else f"{value:8.2f}"


def write(rows: list[dict[str, Any]], stem: str) -> None:
    RESULTS.mkdir(exist_ok=True)
    path = RESULTS / f"{stem}-{datetime.date.today().isoformat()}.csv"
    write_rows(path, rows)
    print(
        f"rows: {path.relative_to(RESULTS.parent.parent) if path.is_relative_to(RESULTS) else path}"
    )


if __name__ == "__main__":
    sys.exit(main())
