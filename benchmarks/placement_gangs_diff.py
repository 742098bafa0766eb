"""Two gang policies, decision by decision and gang size by gang size: where one's cost comes from.

For one scenario, load and seed of ``placement_gangs.py`` (the same SYNTHETIC job mix):

1. **Same states.** Each policy leads a day in turn; at every decision of the leader the
   other policy is asked the same question on the same free capacity (its answer is
   measured, not applied). Per gang size in GPUs: decisions, the summed cost of each
   policy's answer and how many answers differ in cost (and which side is lower). Equal
   sums here mean the two policies decide alike and a gap between their days comes from
   the states they lead to, not from single decisions.
2. **Own days.** Each policy's day on its own: per gang size, its share of the mean cost
   over all admitted gangs (the figure ``placement_gangs.py`` reports), and for the
   largest gangs the wait between arrival and start.

Run: ``python benchmarks/placement_gangs_diff.py [--scenario gb200] [--load 0.6] [--seeds
1-3] [--policies wlmap,slurm-block] [--large 256]``.
"""

from __future__ import annotations

import argparse
from collections import defaultdict
from collections.abc import Sequence

from placement_gangs import scenarios

from wlmap.placement.gangs import (
    FreeCapacity,
    Gang,
    GangPlacement,
    GangPolicy,
    Job,
    JobMix,
    Run,
    Scenario,
    make_gang_policy,
    measure,
    simulate_gangs,
    synthetic_jobs,
)

HOURS = 24.0


class _Shadowed:
    """The leader places; the other answers the same question, measured only."""

    def __init__(self, scenario: Scenario, leader: GangPolicy, other: GangPolicy) -> None:
        self.name = leader.name
        self.scenario, self.leader, self.other = scenario, leader, other
        # per gang size: decisions, leader's cost, other's cost, other lower, other higher
        self.sizes: dict[int, list[float]] = defaultdict(lambda: [0, 0.0, 0.0, 0, 0])

    def place(self, capacity: FreeCapacity, gang: Gang) -> GangPlacement | None:
        mine = self.leader.place(capacity, gang)
        theirs = self.other.place(capacity, gang)
        if mine is None:
            return None
        topology, weights = self.scenario.topology, self.scenario.weights
        cost = measure(mine, topology, weights).cost
        other = cost if theirs is None else measure(theirs, topology, weights).cost
        entry = self.sizes[gang.gpus]
        entry[0] += 1
        entry[1] += cost
        entry[2] += other
        entry[3] += other < cost - 1e-9
        entry[4] += other > cost + 1e-9
        return mine


def same_states(scenario: Scenario, jobs: Sequence[Job], seed: int, lead: str, other: str) -> None:
    shadowed = _Shadowed(
        scenario,
        make_gang_policy(lead, seed=seed, weights=scenario.weights),
        make_gang_policy(other, seed=seed, weights=scenario.weights),
    )
    simulate_gangs(scenario, shadowed, jobs, hours=HOURS)
    print(f"  {lead} leads, {other} asked the same question:")
    print(f"  {'GPUs':>6}{'gangs':>7}{lead:>14}{other:>14}{'other lower':>13}{'higher':>8}")
    for size, (n, mine, theirs, lower, higher) in sorted(shadowed.sizes.items()):
        print(f"  {size:>6}{n:>7.0f}{mine:>14.2f}{theirs:>14.2f}{lower:>13.0f}{higher:>8.0f}")


def own_day(scenario: Scenario, jobs: Sequence[Job], seed: int, name: str) -> Run:
    policy = make_gang_policy(name, seed=seed, weights=scenario.weights)
    return simulate_gangs(scenario, policy, jobs, hours=HOURS)


def show_days(runs: dict[str, Run], large: int) -> None:
    shares: dict[str, dict[int, float]] = {}
    for name, run in runs.items():
        count = max(len(run.admitted), 1)
        by_size: dict[int, float] = defaultdict(float)
        for admitted in run.admitted:
            by_size[admitted.gang.gpus] += admitted.quality.cost / count
        shares[name] = by_size
    sizes = sorted({s for by_size in shares.values() for s in by_size})
    print("  own days, each gang size's share of the mean cost:")
    print(f"  {'GPUs':>6}" + "".join(f"{name:>14}" for name in runs))
    for size in sizes:
        print(f"  {size:>6}" + "".join(f"{shares[name].get(size, 0.0):>14.4f}" for name in runs))
    totals = "".join(f"{sum(shares[name].values()):>14.4f}" for name in runs)
    occupancy = "".join(f"{100 * run.occupancy:>13.2f}%" for run in runs.values())
    print(f"  {'mean':>6}{totals}\n  {'occ.':>6}{occupancy}")
    print(f"  gangs of {large}+ GPUs, wait (s) from arrival to start, in arrival order:")
    for name, run in runs.items():
        waits = [
            f"{a.gang.gpus}:{a.start - a.arrival:.0f}"
            for a in sorted(run.admitted, key=lambda a: a.arrival)
            if a.gang.gpus >= large
        ]
        print(f"  {name:>14}: {' '.join(waits)}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--scenario", default="gb200")
    parser.add_argument("--load", type=float, default=0.6)
    parser.add_argument("--seeds", default="1-3", help="first-last")
    parser.add_argument("--policies", default="wlmap,slurm-block", help="two policies")
    parser.add_argument("--large", type=int, default=256, help="GPUs of the gangs whose wait shows")
    args = parser.parse_args()
    first, _, last = args.seeds.partition("-")
    names = args.policies.split(",")
    if len(names) != 2:
        parser.error("--policies takes two names")
    scenario = scenarios([args.scenario])[0]
    for seed in range(int(first), int(last or first) + 1):
        jobs = synthetic_jobs(scenario, JobMix(load=args.load, hours=HOURS), seed)
        print(f"{scenario.name} at load {args.load:g}, seed {seed}")
        same_states(scenario, jobs, seed, names[0], names[1])
        same_states(scenario, jobs, seed, names[1], names[0])
        runs = {name: own_day(scenario, jobs, seed, name) for name in names}
        show_days(runs, args.large)
        print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
