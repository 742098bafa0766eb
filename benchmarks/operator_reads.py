"""What the operator asks the API server for: cached reads against the former read path.

Starts its own kube-apiserver and etcd (built by scripts/build-apiserver.sh), then runs
the operator twice in the same run, each time in a fresh namespace: first with
``WLMAP_CACHED_READS=false`` (every reconciliation lists the namespace's pods, fetches
every pod's owners and lists the workload's PodGroups: the baseline), then with the
watch-fed cache. Each time it creates
COUNT JobSets (``jobset/coordinator.yaml``: 2 Jobs, 5 pods each) with their Jobs and pods
made directly, as the JobSet and Job controllers would (none runs here), and times the
convergence: one correct PodGroup per JobSet and every pod linked. Then every JobSet is
touched once (a label), which reconciles each of them again: the steady state.

Requests are counted by the server (``apiserver_request_total``); the benchmark's own
requests (its writes, and the listings that check the convergence) are subtracted.

    .venv/bin/python benchmarks/operator_reads.py [COUNT]
"""

from __future__ import annotations

import copy
import re
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the test harness's package

from tests.integration.conftest import TEST_CRDS
from tests.integration.controllers import jobset_children
from tests.integration.kube import Kube, load, wait_for
from tests.integration.load import KAI, converged, expected_minimum
from tests.integration.operator_process import OperatorProcess
from tests.integration.testcluster import TestCluster, build_binaries

SAMPLE = re.compile(r"^apiserver_request_total\{(?P<labels>[^}]*)\} (?P<value>\S+)$")
COUNTED = {
    "pod LISTs": ("LIST", "pods"),
    "Job GETs (owners)": ("GET", "jobs"),
    "JobSet GETs": ("GET", "jobsets"),
    "pod PATCHes (links)": ("PATCH", "pods"),
    "PodGroup LISTs": ("LIST", "podgroups"),
}
TIMEOUT = 900.0


@dataclass
class Phase:
    """Seconds and the operator's request counts (the server's, less ours) of one phase."""

    seconds: float = 0.0
    writes: float = 0.0  # seconds our own writes took
    requests: Counter[tuple[str, str]] = field(default_factory=Counter)
    total: int = 0

    def count(self, name: str) -> int:
        return self.requests[COUNTED[name]]


class OwnRequests:
    """Counts the benchmark's own requests (an httpx request hook)."""

    def __init__(self, metrics: httpx.Client) -> None:
        self.metrics = metrics  # a client of its own, counted apart
        self.metrics_reads = 0
        self.total = 0
        self.lists: Counter[str] = Counter()  # resource -> our LISTs of it
        metrics.event_hooks["request"] = [self.count_metrics_read]

    def count_metrics_read(self, _: httpx.Request) -> None:
        self.metrics_reads += 1

    def __call__(self, request: httpx.Request) -> None:
        self.total += 1
        for _, resource in COUNTED.values():
            if request.method == "GET" and request.url.path.endswith("/" + resource):
                self.lists[resource] += 1


def requests_so_far(metrics: httpx.Client) -> Counter[tuple[str, str]]:
    """The server's request counters by (verb, resource), subresources apart."""
    counts: Counter[tuple[str, str]] = Counter()
    for line in metrics.get("/metrics").text.splitlines():
        match = SAMPLE.match(line)
        if match is None:
            continue
        labels = dict(re.findall(r'(\w+)="([^"]*)"', match["labels"]))
        resource = labels.get("resource", "")
        if labels.get("subresource"):
            resource += "/" + labels["subresource"]
        counts[(labels.get("verb", ""), resource)] += int(float(match["value"]))
    return counts


def reconciled(operator: OperatorProcess) -> int:
    """The operator's count of finished steps, from its health endpoint (0 while it is
    too busy to answer: the former read path can keep its event loop busy for seconds)."""
    try:
        return int(httpx.get(operator.health, timeout=10).json().get("reconciled", 0))
    except httpx.HTTPError:
        return 0


class Run:
    """One operator mode in one namespace, its phases measured."""

    def __init__(
        self, kube: Kube, namespace: str, operator: OperatorProcess, own: OwnRequests
    ) -> None:
        self.kube = kube
        self.metrics = own.metrics
        self.namespace = namespace
        self.operator = operator
        self.own = own

    def linked(self) -> bool:
        """Every pod carries the name of the PodGroup its JobSet owns."""
        groups = {
            owner["name"]: group["metadata"]["name"]
            for group in self.kube.list(*KAI, self.namespace)
            for owner in group["metadata"].get("ownerReferences") or ()
        }
        pods = self.kube.list("v1", "Pod", self.namespace)
        return all(
            (p["metadata"].get("annotations") or {}).get("pod-group-name")
            == groups.get(p["metadata"]["labels"]["jobset.sigs.k8s.io/jobset-name"], "")
            for p in pods
        )

    def measure(self, action: Any) -> Phase:
        """Run ``action`` and wait for the operator; seconds and requests (not ours)."""
        before = requests_so_far(self.metrics)
        own_total, own_lists, reads = (
            self.own.total,
            Counter(self.own.lists),
            self.own.metrics_reads,
        )
        start = time.monotonic()
        phase = Phase(writes=action())
        phase.seconds = time.monotonic() - start
        self.settle()
        phase.requests = requests_so_far(self.metrics) - before
        phase.requests[("GET", "")] -= self.own.metrics_reads - reads
        for resource, ours in (self.own.lists - own_lists).items():
            phase.requests[("LIST", resource)] -= ours
        phase.total = sum(phase.requests.values()) - (self.own.total - own_total)
        return phase

    def settle(self) -> None:
        """Wait until the operator sends nothing more (requests stop changing)."""
        previous = None
        while True:
            time.sleep(3)
            current = requests_so_far(self.metrics)
            current.pop(("GET", ""), None)  # our own /metrics reads among them
            if current == previous:
                return
            previous = current

    def create(self, count: int) -> tuple[Phase, dict[str, dict[str, Any]]]:
        (template,) = load("jobset/coordinator.yaml")
        created: dict[str, dict[str, Any]] = {}
        expected: dict[str, int] = {}

        def action() -> float:
            start = time.monotonic()
            for index in range(count):
                obj = copy.deepcopy(template)
                obj["metadata"]["name"] = f"js-{index}"
                made = self.kube.create(obj, self.namespace)
                jobset_children(self.kube, made)
                created[f"js-{index}"] = made
                expected[f"js-{index}"] = expected_minimum(made)
            writes = time.monotonic() - start
            wait_for(converged(self.kube, self.namespace, expected), "groups", TIMEOUT, 1)
            wait_for(self.linked, "links", TIMEOUT, 1)
            return writes

        return self.measure(action), created

    def touch(self, created: dict[str, dict[str, Any]]) -> Phase:
        def action() -> float:
            start, began = reconciled(self.operator), time.monotonic()
            for obj in created.values():
                self.kube.patch(obj, {"metadata": {"labels": {"touched": "yes"}}})
            writes = time.monotonic() - began
            wait_for(
                lambda: reconciled(self.operator) >= start + len(created),
                "every JobSet reconciled",
                TIMEOUT,
                1,
            )
            return writes

        return self.measure(action)


def run_mode(
    cluster: TestCluster, kube: Kube, own: OwnRequests, folder: Path, cached: bool, count: int
) -> list[Phase]:
    namespace = kube.namespace("reads-cache" if cached else "reads-snapshot")
    operator = OperatorProcess(
        cluster.kubeconfig,
        namespace,
        folder / f"operator-{namespace}.log",
        env={"WLMAP_CACHED_READS": "true" if cached else "false"},
    )
    try:
        operator.start()
        run = Run(kube, namespace, operator, own)
        run.settle()
        created_phase, created = run.create(count)
        return [created_phase, run.touch(created)]
    finally:
        operator.stop()


def main(count: int) -> None:
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        cluster = TestCluster(build_binaries(), folder)
        cluster.start()
        try:
            with cluster.client() as client, cluster.client() as metrics:
                own = OwnRequests(metrics)
                client.event_hooks["request"] = [own]
                kube = Kube(client)
                kube.install_crds(TEST_CRDS)
                before = run_mode(cluster, kube, own, folder, cached=False, count=count)
                after = run_mode(cluster, kube, own, folder, cached=True, count=count)
        finally:
            cluster.stop()
    print(f"{count} JobSets ({2 * count} Jobs, {5 * count} pods made directly, no controllers)")
    titles = ("created, until converged", f"steady state: {count} JobSets touched once")
    for title, old, new in zip(titles, before, after, strict=True):
        print(f"  {title}")
        print(f"    {'':22}{'former reads':>14}{'cached reads':>14}{'ratio':>9}")
        rows = []
        if title.startswith("created"):  # the steady state waits on a health probe's cache
            rows += [
                ("our writes (s)", old.writes, new.writes),
                ("seconds", old.seconds, new.seconds),
            ]
        rows += [(name, old.count(name), new.count(name)) for name in COUNTED]
        rows.append(("all requests", old.total, new.total))
        for label, was, now in rows:
            ratio = f"{was / now:8.1f}x" if now else "       -"
            print(f"    {label:22}{was:>14.1f}{now:>14.1f}{ratio}")
    steady = after[1].requests
    others = ", ".join(f"{verb} {what} {n}" for (verb, what), n in steady.most_common() if n > 0)
    # every request the server counted, the server's own and the benchmark's touches included
    print(f"  all server requests in the cached steady state: {others}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 60)
