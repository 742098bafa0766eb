"""Recovery after node faults: wlmap's re-placement against Kueue hot swap and KAI eviction.

Clusters (``wlmap.placement.gangs.scenarios``): (1) the real Lingjun 2023 Clos from
``../shared/traces/lingjun/topo.csv`` (DSW > PSW > ASW, 847 hosts), with 8 GPUs per host:
an ASSUMPTION, the dataset gives no GPU count; (2) a GB200-like cluster: ``--blocks`` blocks
of 8 racks, a rack = one NVLink domain of 18 nodes x 4 GPUs. Jobs: the SYNTHETIC gang mix
of ``wlmap.placement.gangs.jobmix`` (its defaults: Philly/Gavel sizes with a power-law
tail, required/preferred/no intent 40/40/20 %, tensor-parallel slices) at load 0.8, 12 h of
warm-up then a measured window of 24 simulated hours. Placement: each reaction's own
scheduler end to end (``Reaction.policy``, a name of ``topology.registry``): Kueue hot swap
with ``kueue-bestfit``, KAI eviction with ``kai``, wlmap's reactions, restart and the spare
pools with ``wlmap`` (the default objective).

Faults (``wlmap.placement.gangs.faults.fault_draws``): node MTBF 260 days x stress, correlated
failures of a whole ToR (Lingjun ASW) or rack (GB200) at 1/10 of the node rate, single-GPU
losses at the node rate, detection after ``--detection`` seconds, repair after 8 h.
Modelled recovery times: planning 1 s, pod restart 60 s, checkpoint reload 120 s,
checkpoints every 30 min of progress. Every reaction sees the same arrivals and faults.

Printed per scenario and reaction, pooled over the seeds: affected gangs and their GPUs
(which gangs a fault hits differs between separate runs), MTTR mean / p50 /
p95 (s), shares recovered by swap (only lost pods moved) / whole re-placement / requeue,
mean change of communication cost and of finest-level span after recovery, healthy pods
evicted, lost GPU-hours (GPUs x (work redone since the checkpoint + MTTR)), the downtime
part of it alone (GPUs x MTTR: the part a reaction controls; the redone part depends on
which gangs the faults happen to hit), goodput, constraint or accounting violations (must
be 0); then wlmap's MTTR, lost GPU-hours, GPUs hit and lost GPU-hours per GPU hit as
ratios to Kueue hot swap and KAI eviction
measured in the same run. Scenarios: stress 1/5/10 at 60 s detection, and detection
20/300 s at stress 5. A CSV with one row per (scenario, reaction, seed) goes to
``benchmarks/results/placement_faults-<date>.csv``.

With ``--paired`` every reaction meets the same faults from the same state instead
(``wlmap.placement.gangs.faults.paired``: a restart run placing with ``--reference``,
``kueue-bestfit`` by default, carries the day and is copied at each fault; arrivals keep
that placement in every copy, the gangs a fault hit are re-placed with the reaction's own
policy), so the gangs hit and the work they redo are identical and the figures differ only
by the reaction and its placement; spare pools are left out there. Its CSV ends in
``-paired``.

Run: ``python benchmarks/placement_faults.py [--smoke] [--paired] [--seeds 1-5]
[--stress 1,5,10] [--detection 20,60,300] [--reference kueue-bestfit] [--cases 10:60]
[--reactions kueue-hot-swap,kai-stale-gang,wlmap] [--exact] [--tag NAME]``

``--exact`` solves the CP-SAT reference at every decision of Kueue's, KAI's, restart's and
wlmap's reactions (``wlmap.placement.gangs.faults.reference``) and prints, per reaction:
decisions, those that placed the gang at once, the share that moved the fewest pods
possible, pods moved over that fewest, and the communication cost over the reference's
(mean, p95, max, share equal) where both moved the fewest; its CSV ends in ``-exact``.
"""

from __future__ import annotations

import argparse
import datetime
import statistics
from collections.abc import Callable
from pathlib import Path

from _results import write_rows

from wlmap.placement.gangs import (
    ExactReference,
    FaultModel,
    GangPolicy,
    JobMix,
    KaiStaleGangEviction,
    KueueHotSwap,
    Reaction,
    Record,
    RecoveryParams,
    RecoveryRun,
    RestartFromScratch,
    Scenario,
    SparePoolSwap,
    WlmapReplacement,
    describe,
    draw_faults,
    make_gang_policy,
    paired_recoveries,
    scenarios,
    simulate_recovery,
    synthetic_jobs,
)
from wlmap.placement.gangs import ReferenceDecision as Decision
from wlmap.placement.gangs import summarise_references as summarise

ROOT = Path(__file__).resolve().parent
RESULTS = ROOT / "results"
LINGJUN = ROOT.parents[1] / "shared" / "traces" / "lingjun" / "topo.csv"
REACTIONS: tuple[Callable[[], Reaction], ...] = (
    KueueHotSwap,
    KaiStaleGangEviction,
    RestartFromScratch,
    lambda: SparePoolSwap(0),
    lambda: SparePoolSwap(2),
    lambda: SparePoolSwap(5),
    WlmapReplacement,
    lambda: WlmapReplacement(keep_domain=True),
    lambda: WlmapReplacement(5),
)


def _mix(params: RecoveryParams) -> JobMix:
    return JobMix(load=0.8, hours=(params.warmup_s + params.horizon_s) / 3600.0)


def _policy(name: str, scenario: Scenario, seed: int) -> GangPolicy:
    return make_gang_policy(name, seed=seed, weights=scenario.weights)


def _seeds(text: str) -> list[int]:
    if "-" in text:
        low, high = text.split("-")
        return list(range(int(low), int(high) + 1))
    return [int(s) for s in text.split(",")]


def _row(run: RecoveryRun, end: float) -> tuple[dict[str, float | int], list[float]]:
    records = run.records
    mttr = [r.mttr_s if r.mttr_s is not None else end - r.fault_at for r in records]
    kinds = [r.kind for r in records]
    closed = [r for r in records if r.cost_after is not None and r.span_after is not None]
    row: dict[str, float | int] = {
        "affected": len(records),
        "gpus_hit": sum(r.gpus for r in records),
        "unrecovered": sum(r.mttr_s is None for r in records),
        "mttr_sum_s": round(sum(mttr), 1),
        "swap": kinds.count("swap"),
        "replace": kinds.count("replace"),
        "requeue": kinds.count("requeue"),
        "d_cost_sum": round(sum((r.cost_after or 0.0) - r.cost_before for r in closed), 3),
        "d_span_sum": sum((r.span_after or 0) - r.span_before for r in closed),
        "closed": len(closed),
        "evicted_pods": sum(r.evicted for r in records),
        "moved_pods": sum(r.moved for r in records),
        "lost_gpu_h": round(sum(r.lost_gpu_h(end) for r in records), 2),
        "down_gpu_h": round(sum(r.gpus * m for r, m in zip(records, mttr, strict=True)) / 3600, 2),
        "allocated_gpu_h": round(run.allocated_gpu_s / 3600, 1),
        "productive_gpu_h": round(run.productive_gpu_s / 3600, 1),
        "violations": len(run.violations),
    }
    return row, mttr


def _pct(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def _summary(rows: list[dict[str, float | int]], mttr: list[float]) -> dict[str, float]:
    def total(key: str) -> float:
        return float(sum(r[key] for r in rows))

    affected = total("affected") or 1.0
    closed = total("closed") or 1.0
    return {
        "affected": total("affected"),
        "gpus_hit": total("gpus_hit"),
        "mttr": statistics.fmean(mttr) if mttr else 0.0,
        "p50": _pct(mttr, 0.5),
        "p95": _pct(mttr, 0.95),
        "swap": total("swap") / affected,
        "replace": total("replace") / affected,
        "requeue": total("requeue") / affected,
        "d_cost": total("d_cost_sum") / closed,
        "d_span": total("d_span_sum") / closed,
        "evicted": total("evicted_pods"),
        "lost": total("lost_gpu_h"),
        "down": total("down_gpu_h"),
        "goodput": total("productive_gpu_h") / (total("allocated_gpu_h") or 1.0),
        "violations": total("violations"),
    }


EXACT_FOR = ("kueue-hot-swap", "kai-stale-gang", "restart", "wlmap", "wlmap-local")


def _exact_rows(
    decisions: dict[str, list[Decision]], base: dict[str, float | int | str]
) -> list[dict[str, float | int | str]]:
    rows: list[dict[str, float | int | str]] = []
    for key, found in decisions.items():
        summary = summarise(found)
        rows.append({**base, "reaction": key, **{k: round(v, 4) for k, v in summary.items()}})
    return rows


def _print_exact(decisions: dict[str, list[Decision]]) -> None:
    print(
        f"{'exact per fault':<18}{'decis':>6}{'placed':>7}{'fewest':>7}{'moved':>7}"
        f"{'cost/opt':>9}{'p95':>7}{'max':>7}{'=opt':>6}{'0miss':>6}{'s/solve':>8}"
    )
    for key, found in decisions.items():
        s = summarise(found)
        print(
            f"{key:<18}{s['decisions']:>6.0f}{s['placed']:>7.0f}{s['fewest_share']:>7.0%}"
            f"{s['moved_ratio_mean']:>7.2f}{s['cost_ratio_mean']:>9.3f}{s['cost_ratio_p95']:>7.3f}"
            f"{s['cost_ratio_max']:>7.3f}{s['optimal_share']:>6.0%}{s['zero_cost_missed']:>6.0f}"
            f"{s['seconds_mean']:>8.3f}"
        )


def scenario(
    name: str,
    world: Scenario,
    model: FaultModel,
    params: RecoveryParams,
    seeds: list[int],
    out: list[dict[str, float | int | str]],
    exact_out: list[dict[str, float | int | str]] | None = None,
    only: tuple[str, ...] = (),
) -> None:
    end = params.warmup_s + params.horizon_s
    per: dict[str, tuple[list[dict[str, float | int]], list[float]]] = {}
    decisions: dict[str, list[Decision]] = {}
    topology = world.topology
    for seed in seeds:
        arrivals = synthetic_jobs(world, _mix(params), seed)
        faults = draw_faults(topology, model, params.horizon_s, seed)
        for make in REACTIONS:
            reaction = make()
            if only and reaction.name not in only:
                continue
            policy = _policy(reaction.policy, world, seed)
            exact = None
            if exact_out is not None and reaction.name in EXACT_FOR:
                exact = ExactReference(world.weights)
            run = simulate_recovery(
                topology, arrivals, faults, policy, reaction, params, seed, exact
            )
            if exact is not None:
                decisions.setdefault(reaction.name, []).extend(exact.decisions)
            row, mttr = _row(run, end)
            rows, pooled = per.setdefault(reaction.name, ([], []))
            rows.append(row)
            pooled.extend(mttr)
            out.append(
                {
                    "scenario": name,
                    "stress": model.stress,
                    "detection_s": model.detection_s,
                    "reaction": reaction.name,
                    "seed": seed,
                    "faults": len(faults),
                    **row,
                    "mix": "SYNTHETIC",
                }
            )
    print(
        f"\n## {name}: stress {model.stress:g}x, detection {model.detection_s:g} s, seeds {seeds}"
    )
    print(f"   ({describe(_mix(params), world)}; each reaction with its own placement)")
    head = (
        f"{'reaction':<18}{'gangs':>6}{'GPUs':>7}{'MTTR':>8}{'p50':>7}{'p95':>8}{'swap':>6}{'repl':>6}"
        f"{'requ':>6}{'dCost':>7}{'dSpan':>6}{'evict':>6}{'lostGPUh':>9}{'downGPUh':>9}"
        f"{'goodput':>8}{'viol':>5}"
    )
    print(head)
    sums = {k: _summary(*v) for k, v in per.items()}
    for key, s in sums.items():
        print(
            f"{key:<18}{s['affected']:>6.0f}{s['gpus_hit']:>7.0f}{s['mttr']:>8.0f}{s['p50']:>7.0f}{s['p95']:>8.0f}"
            f"{s['swap']:>6.0%}{s['replace']:>6.0%}{s['requeue']:>6.0%}{s['d_cost']:>7.2f}"
            f"{s['d_span']:>6.2f}{s['evicted']:>6.0f}{s['lost']:>9.1f}{s['down']:>9.1f}{s['goodput']:>8.4f}"
            f"{s['violations']:>5.0f}"
        )
    if exact_out is not None:
        _print_exact(decisions)
        exact_out.extend(_exact_rows(decisions, _case(name, model, "separate", seeds)))
    for ours in ("wlmap", "wlmap+spare-5%"):
        for base in ("kueue-hot-swap", "kai-stale-gang"):
            if ours not in sums or base not in sums:
                continue
            a, b = sums[ours], sums[base]
            per_a = a["lost"] / (a["gpus_hit"] or 1)
            per_b = b["lost"] / (b["gpus_hit"] or 1)
            print(
                f"{ours} vs {base}: MTTR x{a['mttr'] / (b['mttr'] or 1):.2f}, "
                f"lost GPU-h x{a['lost'] / (b['lost'] or 1):.2f}, "
                f"down GPU-h x{a['down'] / (b['down'] or 1):.2f}, "
                f"GPUs hit x{a['gpus_hit'] / (b['gpus_hit'] or 1):.2f}, "
                f"lost GPU-h per GPU hit x{per_a / (per_b or 1):.2f}"
            )


PAIRED: tuple[Callable[[], Reaction], ...] = (
    KueueHotSwap,
    KaiStaleGangEviction,
    RestartFromScratch,
    WlmapReplacement,
    lambda: WlmapReplacement(keep_domain=True),
)


def _case(
    name: str, model: FaultModel, mode: str, seeds: list[int]
) -> dict[str, float | int | str]:
    return {
        "scenario": name,
        "stress": model.stress,
        "detection_s": model.detection_s,
        "mode": mode,
        "seeds": f"{seeds[0]}-{seeds[-1]}",
    }


def paired(
    name: str,
    world: Scenario,
    model: FaultModel,
    params: RecoveryParams,
    seeds: list[int],
    out: list[dict[str, float | int | str]],
    reference: str = "kueue-bestfit",
    exact_out: list[dict[str, float | int | str]] | None = None,
) -> None:
    """Every reaction on the same faults from the same state (restart carries the day)."""
    end = params.warmup_s + params.horizon_s
    decisions: dict[str, list[Decision]] = {}
    pooled: dict[str, list[Record]] = {}
    flagged: dict[str, int] = {}
    topology = world.topology
    for seed in seeds:
        arrivals = synthetic_jobs(world, _mix(params), seed)
        faults = draw_faults(topology, model, params.horizon_s, seed)
        reactions = [make() for make in PAIRED]
        own = {r.name: _policy(r.policy, world, seed) for r in reactions}
        problems: dict[str, list[str]] = {}
        found = paired_recoveries(
            topology,
            arrivals,
            faults,
            _policy(reference, world, seed),
            RestartFromScratch(reference),
            reactions,
            params,
            seed,
            own,
            problems,
            None if exact_out is None else (world.weights, decisions),
        )
        for key, records in found.items():
            pooled.setdefault(key, []).extend(records)
            flagged[key] = flagged.get(key, 0) + len(problems.get(key, []))
            mttr = [r.mttr_s if r.mttr_s is not None else end - r.fault_at for r in records]
            out.append(
                {
                    "scenario": name,
                    "stress": model.stress,
                    "detection_s": model.detection_s,
                    "reaction": key,
                    "seed": seed,
                    "faults": len(faults),
                    "affected": len(records),
                    "mttr_sum_s": round(sum(mttr), 1),
                    "swap": sum(r.kind == "swap" for r in records),
                    "replace": sum(r.kind == "replace" for r in records),
                    "requeue": sum(r.kind == "requeue" for r in records),
                    "evicted_pods": sum(r.evicted for r in records),
                    "lost_gpu_h": round(sum(r.lost_gpu_h(end) for r in records), 2),
                    "violations": len(problems.get(key, [])),
                    "mix": "SYNTHETIC",
                }
            )
    print(
        f"\n## paired, {name}: stress {model.stress:g}x, detection {model.detection_s:g} s, "
        f"state carried by {reference}"
    )
    print(
        f"{'reaction':<18}{'gangs':>6}{'MTTR':>8}{'p95':>8}{'swap':>6}{'repl':>6}{'requ':>6}{'evict':>7}{'lostGPUh':>10}"
    )
    sums: dict[str, tuple[float, float]] = {}
    for key, records in pooled.items():
        n = len(records) or 1
        mttr = [r.mttr_s if r.mttr_s is not None else end - r.fault_at for r in records]
        lost = sum(r.lost_gpu_h(end) for r in records)
        sums[key] = (statistics.fmean(mttr) if mttr else 0.0, lost)
        kinds = [r.kind for r in records]
        print(
            f"{key:<18}{len(records):>6}{sums[key][0]:>8.0f}{_pct(mttr, 0.95):>8.0f}"
            f"{kinds.count('swap') / n:>6.0%}{kinds.count('replace') / n:>6.0%}"
            f"{kinds.count('requeue') / n:>6.0%}{sum(r.evicted for r in records):>7}{lost:>10.1f}"
        )
    print("violations: " + ", ".join(f"{k} {v}" for k, v in flagged.items()))
    if exact_out is not None:
        _print_exact(decisions)
        exact_out.extend(_exact_rows(decisions, _case(name, model, "paired", seeds)))
    for base in ("kueue-hot-swap", "kai-stale-gang"):
        (m, lost), (bm, blost) = sums["wlmap"], sums[base]
        print(f"wlmap vs {base}: MTTR x{m / (bm or 1):.3f}, lost GPU-h x{lost / (blost or 1):.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--smoke", action="store_true", help="2 GB200 blocks, one seed, 12 h, stress 10"
    )
    parser.add_argument("--seeds", default="1-5")
    parser.add_argument("--stress", default="1,5,10", help="at a detection delay of 60 s")
    parser.add_argument("--detection", default="20,60,300", help="at a stress of 5")
    parser.add_argument("--blocks", type=int, default=6, help="GB200 blocks of 8 racks")
    parser.add_argument("--only", choices=("lingjun", "gb200"), help="one cluster only")
    parser.add_argument("--tag", default="", help="suffix of the CSV name, e.g. seeds6-15")
    parser.add_argument(
        "--paired", action="store_true", help="every reaction on the same faults, same state"
    )
    parser.add_argument(
        "--reference", default="kueue-bestfit", help="policy of the run that carries the day"
    )
    parser.add_argument("--cases", default="", help="only these stress:detection, e.g. 10:60")
    parser.add_argument(
        "--reactions", default="", help="separate runs: only these reactions, comma-separated"
    )
    parser.add_argument(
        "--exact",
        action="store_true",
        help="compare each decision with the CP-SAT reference (own CSV, ending in -exact)",
    )
    args = parser.parse_args()
    seeds = [1] if args.smoke else _seeds(args.seeds)
    params = RecoveryParams()
    topologies = [("gb200", scenarios.gb200(2 if args.smoke else args.blocks), 1)]
    if LINGJUN.exists() and not args.smoke:
        topologies.insert(0, ("lingjun", scenarios.lingjun(LINGJUN), 2))
    if args.smoke:
        params = RecoveryParams(warmup_s=6 * 3600.0, horizon_s=12 * 3600.0)
    topologies = [t for t in topologies if args.only in (None, t[0])]
    cases = [(float(s), 60.0) for s in args.stress.split(",")]
    cases += [(5.0, float(d)) for d in args.detection.split(",") if float(d) != 60.0]
    if args.cases:
        cases = [(float(a), float(b)) for a, b in (c.split(":") for c in args.cases.split(","))]
    if args.smoke:
        cases = [(10.0, 60.0)]
    out: list[dict[str, float | int | str]] = []
    exact_out: list[dict[str, float | int | str]] | None = [] if args.exact else None
    tag = ("-paired" if args.paired else "") + (f"-{args.tag}" if args.tag else "")
    path = RESULTS / f"placement_faults-{datetime.date.today().isoformat()}{tag}.csv"
    exact_path = path.with_name(path.stem + "-exact.csv")
    for name, world, level in topologies:
        for stress, detection in cases:
            model = FaultModel(stress=stress, correlated_level=level, detection_s=detection)
            if args.paired:
                paired(name, world, model, params, seeds, out, args.reference, exact_out)
            else:
                only = tuple(r for r in args.reactions.split(",") if r)
                scenario(name, world, model, params, seeds, out, exact_out, only)
            if not args.smoke:  # after every scenario, so a long run keeps what it measured
                write_rows(path, out)
                if exact_out:
                    write_rows(exact_path, exact_out)
    if not args.smoke:
        print(f"\nwrote {path.relative_to(ROOT.parent)}")
        if exact_out:
            print(f"wrote {exact_path.relative_to(ROOT.parent)}")


if __name__ == "__main__":
    main()
