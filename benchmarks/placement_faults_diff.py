"""Separate fault runs, fault by fault: why one reaction's day loses more than another's.

In separate runs (``placement_faults.py`` without ``--paired``) each reaction lives its own
day with its own scheduler's placement, so the same fault (same moment, same nodes) hits
different gangs. This prints, for one cluster, stress, detection delay and seed, every
fault with what it cost each reaction: gangs and GPUs hit, GPU-hours of work redone since
the last checkpoint (set by which gangs were hit, not by the reaction), downtime GPU-hours
(GPUs x MTTR, set by the reaction and the queue) and MTTR; then the totals split into the
two parts. A fault whose records span several faults (a gang hit again before it was
productive) is counted at its first fault.

The same SYNTHETIC job mix, fault model and modelled times as ``placement_faults.py``.

Run: ``python benchmarks/placement_faults_diff.py [--cluster lingjun|gb200] [--stress 5]
[--detection 60] [--seed 1] [--reactions kueue-hot-swap,wlmap] [--all]`` (``--all`` prints
every fault, else only those where the reactions differ by more than 1 GPU-hour).
"""

from __future__ import annotations

import argparse
from collections import defaultdict
from collections.abc import Callable

from placement_faults import LINGJUN, _mix, _policy

from wlmap.placement.gangs import (
    FaultModel,
    KaiStaleGangEviction,
    KueueHotSwap,
    Reaction,
    Record,
    RecoveryParams,
    RestartFromScratch,
    WlmapReplacement,
    draw_faults,
    scenarios,
    simulate_recovery,
    synthetic_jobs,
)

MAKERS: dict[str, Callable[[], Reaction]] = {
    "kueue-hot-swap": KueueHotSwap,
    "kai-stale-gang": KaiStaleGangEviction,
    "restart": RestartFromScratch,
    "wlmap": WlmapReplacement,
}


def _by_fault(records: list[Record], end: float) -> dict[float, list[float]]:
    """Per fault time: gangs, GPUs, redone GPU-h, downtime GPU-h, MTTR sum."""
    out: dict[float, list[float]] = defaultdict(lambda: [0.0] * 5)
    for r in records:
        mttr = r.mttr_s if r.mttr_s is not None else end - r.fault_at
        row = out[r.fault_at]
        row[0] += 1
        row[1] += r.gpus
        row[2] += r.gpus * r.recompute_s / 3600
        row[3] += r.gpus * mttr / 3600
        row[4] += mttr
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cluster", choices=("lingjun", "gb200"), default="lingjun")
    parser.add_argument("--stress", type=float, default=5.0)
    parser.add_argument("--detection", type=float, default=60.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--blocks", type=int, default=6)
    parser.add_argument("--reactions", default="kueue-hot-swap,wlmap")
    parser.add_argument("--all", action="store_true")
    args = parser.parse_args()
    if args.cluster == "lingjun":
        world, level = scenarios.lingjun(LINGJUN), 2
    else:
        world, level = scenarios.gb200(args.blocks), 1
    params = RecoveryParams()
    end = params.warmup_s + params.horizon_s
    model = FaultModel(stress=args.stress, correlated_level=level, detection_s=args.detection)
    arrivals = synthetic_jobs(world, _mix(params), args.seed)
    faults = draw_faults(world.topology, model, params.horizon_s, args.seed)
    names = args.reactions.split(",")
    per: dict[str, dict[float, list[float]]] = {}
    for name in names:
        reaction = MAKERS[name]()
        policy = _policy(reaction.policy, world, args.seed)
        run = simulate_recovery(
            world.topology, arrivals, faults, policy, reaction, params, args.seed
        )
        per[name] = _by_fault(run.records, end)
    print(
        f"# {args.cluster}, stress {args.stress:g}x, detection {args.detection:g} s, seed {args.seed}"
    )
    cells = "".join(f" | {n}: gangs GPUs redo down MTTR" for n in names)
    print(f"fault at (s) kind  nodes{cells}")
    totals = {n: [0.0] * 5 for n in names}
    for fault in faults:
        at = fault.at + params.warmup_s
        rows = {n: per[n].get(at, [0.0] * 5) for n in names}
        for n in names:
            totals[n] = [a + b for a, b in zip(totals[n], rows[n], strict=True)]
        lost = [rows[n][2] + rows[n][3] for n in names]
        if not args.all and max(lost) - min(lost) <= 1.0:
            continue
        line = "".join(
            f" | {r[0]:>3.0f} {r[1]:>5.0f} {r[2]:>6.1f} {r[3]:>6.1f} {r[4] / max(r[0], 1):>5.0f}"
            for r in rows.values()
        )
        print(f"{fault.at:>12.0f} {fault.kind:<8}{len(fault.nodes):>3}{line}")
    print("totals (gangs, GPUs hit, redone GPU-h, downtime GPU-h, mean MTTR):")
    for n, t in totals.items():
        print(
            f"  {n:<16} {t[0]:>4.0f} {t[1]:>6.0f} {t[2]:>8.1f} {t[3]:>8.1f} {t[4] / max(t[0], 1):>6.0f}"
        )


if __name__ == "__main__":
    main()
