"""Gangs placed end to end on a real cluster: wlmap's placement controller against
kube-scheduler alone, on the same Jobs.

Starts etcd, kube-apiserver, kube-controller-manager, kube-scheduler and KWOK (built by
scripts/build-apiserver.sh and scripts/build-cluster-parts.sh, cached) with fake GPU nodes
in a block/rack/host topology (default 5 x 10 x 20 = 1,000 nodes of 8 GPUs), then creates
the same gangs twice in two namespaces, one after the other, the first run's pods all gone
before the second starts:

- **kube-scheduler alone**: the Jobs as written (their Kueue preferred-topology annotation
  is read by nobody), bound by kube-scheduler's default profile;
- **wlmap**: the namespace opted in to placement; the operator's webhook gates each pod,
  the controller plans each gang once its pods exist, narrows them to the chosen domain
  and releases them, and the same kube-scheduler binds.

The gangs (default 200, 3,000 pods, 6,400 GPUs: 80 % of the cluster): a quarter each of
4 pods x 8 GPUs, 8 x 4, 16 x 2 and 32 x 1 (every gang 32 GPUs, a fifth of a rack), each
a Job of parallel pods that prefer one rack (``kueue.x-k8s.io/podset-preferred-topology``),
created in a seeded shuffled order as fast as the API takes them.

A run ends when every pod is bound, or when none was bound for 90 s (pods that fit
nowhere: spread small pods can leave no whole node for a pod of 8 GPUs). Figures per run:
pods per second from the first Job created to the last pod bound (over the pods bound;
the ratio wlmap / kube-scheduler is the one to read), gangs bound whole, the share of all
gangs bound whole in one rack (the preferred domain), the placement condition of gangs
not bound whole, per-pod seconds from creation to binding, and for wlmap the decision
latency: from a gang's last pod seen created to its first pod seen released. Times are
taken from one pod watch in this process. Rows go to
``benchmarks/results/placement_live-DATE.csv``.

    .venv/bin/python benchmarks/placement_live.py [--blocks 5 --racks 10 --hosts 20] [--gangs 200]
"""

from __future__ import annotations

import argparse
import datetime
import math
import random
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the harness's package

from _live_watch import PodTimes, Tracker, percentile
from _results import RESULTS, write_rows
from tests.integration.fakenodes import (
    BLOCK_LABEL,
    HOST_LABEL,
    RACK_LABEL,
    KwokCluster,
    Topology,
    kwok_cluster,
)
from tests.integration.kube import Kube, wait_for
from tests.integration.kwokpods import pod_template
from tests.integration.operator_process import placement_operator

PREFERRED = "kueue.x-k8s.io/podset-preferred-topology"
OPT_IN = "wlmap.dev/placement"
GANG_LABEL = "bench.wlmap.dev/gang"
CONDITION = "WlmapPlacement"
SHAPES = ((4, 8), (8, 4), (16, 2), (32, 1))  # (pods, GPUs per pod): 32 GPUs a gang
KAI_CRD = "scheduling.run.ai_podgroups.yaml"  # so the operator's gang writes succeed
QUIET_SECONDS = 90.0  # longer than the 30 s after which a gang that did not fit is replanned


def gangs(count: int, seed: int) -> list[tuple[str, int, int]]:
    """(name, pods, GPUs per pod) of ``count`` gangs, a quarter of each shape, shuffled."""
    shapes = [SHAPES[i % len(SHAPES)] for i in range(count)]
    random.Random(seed).shuffle(shapes)
    return [(f"gang-{i:03d}", pods, gpus) for i, (pods, gpus) in enumerate(shapes)]


def job(name: str, pods: int, gpus: int) -> dict[str, Any]:
    template = pod_template({}, gpus, {GANG_LABEL: name}, restart="Never")
    template["metadata"]["annotations"] = {PREFERRED: RACK_LABEL}
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": name},
        "spec": {"parallelism": pods, "completions": pods, "template": template},
    }


def run(
    kwok: KwokCluster,
    namespace: str,
    mix: list[tuple[str, int, int]],
    timeout: float,
    clean: bool = True,
) -> dict[str, Any]:
    """Create the gangs' Jobs, wait until every pod is bound; the run's figures. With
    ``clean``, the pods are deleted (and gone) before it returns."""
    kube = kwok.kube
    total = sum(pods for _, pods, _ in mix)
    with Tracker(kwok.cluster, namespace, GANG_LABEL) as tracker:
        started = time.monotonic()
        for name, pods, gpus in mix:
            kube.create(job(name, pods, gpus), namespace)
        created = time.monotonic() - started
        _settle(tracker, total, timeout)
        times = tracker.pods()
    nodes = {n["metadata"]["name"]: n["metadata"]["labels"] for n in kwok.kube.list("v1", "Node")}
    jobs = {j["metadata"]["name"]: j for j in kube.list("batch/v1", "Job", namespace)}
    if clean:
        _delete_all(kube, namespace, mix, timeout)
    bound = [t for t in times.values() if t.bound is not None and t.node is not None]
    last_bound = max(t.bound for t in bound if t.bound is not None)
    racks: dict[str, set[str]] = {}
    for pod in bound:
        assert pod.node is not None
        racks.setdefault(pod.gang, set()).add(nodes[pod.node][RACK_LABEL])
    counts = Counter(pod.gang for pod in bound)
    whole = [name for name, pods, _ in mix if counts[name] == pods]
    return {
        "pods": total,
        "gangs": len(mix),
        "pods_bound": len(bound),
        "gangs_bound": len(whole),
        "create_seconds": round(created, 2),
        "seconds": round(last_bound - started, 2),
        "pods_per_second": round(len(bound) / (last_bound - started), 2),
        "in_preferred_rack": round(sum(len(racks[g]) == 1 for g in whole) / len(mix), 4),
        "not_whole": _reasons(jobs[name] for name, _, _ in mix if name not in whole),
        **_latencies(times),
        **_idle(times, started),
    }


def _reasons(jobs: Iterable[dict[str, Any]]) -> str:
    """The placement condition's reasons of the gangs not bound whole (``none``: the
    controller said nothing, as with kube-scheduler alone), counted."""
    said = Counter(
        next(
            (
                c["reason"]
                for c in job.get("status", {}).get("conditions") or ()
                if c["type"] == CONDITION
            ),
            "none",
        )
        for job in jobs
    )
    return " ".join(f"{reason}:{count}" for reason, count in sorted(said.items()))


def _settle(tracker: Tracker, total: int, timeout: float) -> None:
    """Wait until every pod is bound, or none was for ``QUIET_SECONDS`` (the rest do not
    fit: spread pods can leave no whole node for a pod of 8 GPUs)."""
    deadline = time.monotonic() + timeout
    last, since = -1, time.monotonic()
    while (count := tracker.bound()) < total:
        now = time.monotonic()
        if count != last:
            last, since = count, now
        elif now - since > QUIET_SECONDS:
            return
        if now > deadline:
            raise AssertionError(f"timed out after {timeout:.0f} s: {count} of {total} pods bound")
        time.sleep(1)


def _latencies(times: dict[str, PodTimes]) -> dict[str, float | None]:
    to_bound = sorted(t.bound - t.created for t in times.values() if t.bound is not None)
    by_gang: dict[str, list[PodTimes]] = {}
    for pod in times.values():
        by_gang.setdefault(pod.gang, []).append(pod)
    decisions = sorted(
        min(p.released for p in pods if p.released is not None) - max(p.created for p in pods)
        for pods in by_gang.values()
        if any(p.gated for p in pods) and any(p.released is not None for p in pods)
    )
    return {
        "bound_p50_s": round(percentile(to_bound, 50), 3),
        "bound_p95_s": round(percentile(to_bound, 95), 3),
        "decision_p50_s": round(percentile(decisions, 50), 3) if decisions else None,
        "decision_p95_s": round(percentile(decisions, 95), 3) if decisions else None,
        "decision_p99_s": round(percentile(decisions, 99), 3) if decisions else None,
        "decision_max_s": round(decisions[-1], 3) if decisions else None,
    }


def _idle(times: dict[str, PodTimes], started: float) -> dict[str, float]:
    """When the first pod was free to bind (created ungated, or released), and the
    seconds after it during which no free pod waited for kube-scheduler while some were
    still to come: the time the scheduler had nothing to bind."""
    steps = sorted(
        [(t.released, 1) for t in times.values() if t.released is not None]
        + [(t.bound, -1) for t in times.values() if t.bound is not None],
        key=lambda step: (step[0], -step[1]),  # a pod seen released and bound at once
    )
    if not steps:
        return {"first_free_s": math.nan, "scheduler_idle_s": math.nan}
    waiting, idle, since = 0, 0.0, steps[0][0]
    for at, change in steps:
        if waiting == 0:
            idle += at - since
        waiting += change
        since = at
    return {
        "first_free_s": round(steps[0][0] - started, 2),
        "scheduler_idle_s": round(idle, 2),
    }


def _delete_all(
    kube: Kube, namespace: str, mix: list[tuple[str, int, int]], timeout: float
) -> None:
    for name, _, _ in mix:
        path = kube.path("batch/v1", "Job", namespace, name)
        kube.http.request("DELETE", path, json={"propagationPolicy": "Background"})
    wait_for(lambda: not kube.list("v1", "Pod", namespace), "the pods gone", timeout, interval=2)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--blocks", type=int, default=5)
    parser.add_argument("--racks", type=int, default=10)
    parser.add_argument("--hosts", type=int, default=20)
    parser.add_argument("--gangs", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=1200.0)
    args = parser.parse_args(argv)
    topology = Topology(blocks=args.blocks, racks=args.racks, hosts=args.hosts)
    mix = gangs(args.gangs, args.seed)
    say: Callable[[str], None] = lambda line: print(line, flush=True)  # noqa: E731
    rows = []
    with tempfile.TemporaryDirectory() as folder, kwok_cluster(Path(folder), topology, say) as kwok:
        kwok.kube.install_crds([KAI_CRD])
        plain = kwok.kube.namespace("plain")
        say(f"kube-scheduler alone: {len(mix)} gangs, {sum(p for _, p, _ in mix)} pods")
        rows.append({"scheduler": "kube-scheduler", **run(kwok, plain, mix, args.timeout)})
        placed = kwok.kube.namespace("placed")
        labels = {"wlmap.dev/gang": "true", OPT_IN: "enabled"}
        kwok.kube.patch(
            {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": placed}},
            {"metadata": {"labels": labels}},
        )
        levels = (BLOCK_LABEL, RACK_LABEL, HOST_LABEL)
        config = kwok.cluster.kubeconfig
        operator = placement_operator(kwok.kube, config, placed, Path(folder), levels)
        try:
            say("wlmap placement controller, then kube-scheduler")
            rows.append({"scheduler": "wlmap", **run(kwok, placed, mix, args.timeout, clean=False)})
        except AssertionError:
            print(operator.output()[-6000:], file=sys.stderr)
            raise
        finally:
            operator.stop()
    shape = {"nodes": topology.size, "ready_seconds": round(kwok.ready_seconds, 1)}
    rows = [{**shape, **row} for row in rows]
    report(rows)
    day = datetime.date.today().isoformat()
    print(f"rows: {write_rows(RESULTS / f'placement_live-{day}.csv', rows)}")


def report(rows: list[dict[str, Any]]) -> None:
    plain, placed = rows
    print(
        f"{plain['nodes']} KWOK nodes, {plain['gangs']} gangs, {plain['pods']} pods "
        f"(4x8, 8x4, 16x2, 32x1 GPUs; preferred level: rack)"
    )
    for row in rows:
        decision = (
            f"; decision p50 {row['decision_p50_s']} s, p95 {row['decision_p95_s']} s, "
            f"p99 {row['decision_p99_s']} s, "
            f"max {row['decision_max_s']} s"
            if row["decision_p50_s"] is not None
            else ""
        )
        print(
            f"  {row['scheduler']:15} {row['pods_per_second']:7.1f} pods/s creation->bound "
            f"({row['pods_bound']} pods bound in {row['seconds']} s, {row['gangs_bound']} gangs "
            f"whole; not whole: {row['not_whole'] or '-'}); gangs in one rack "
            f"{100 * row['in_preferred_rack']:5.1f} %; "
            f"pod bound p50 {row['bound_p50_s']} s, p95 {row['bound_p95_s']} s{decision}; "
            f"first pod free to bind at {row['first_free_s']} s, scheduler without a pod "
            f"to bind {row['scheduler_idle_s']} s"
        )
    ratio = placed["pods_per_second"] / plain["pods_per_second"]
    print(f"  ratio wlmap / kube-scheduler alone: {ratio:.2f}x pods/s")


if __name__ == "__main__":
    main()
