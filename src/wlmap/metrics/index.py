"""The metrics index: every series the exporter serves, kept current object by object.

The watches (or ``wlmap metrics -f``) feed it one object at a time; each workload's
series are rendered when it changes and kept as text, each node's too, and the GPU-seconds
sums move by the pods that changed. A scrape joins the kept text under each family's
header and reads the per-group sums, so it costs the size of the output, and an update
costs the size of the workload that changed.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Hashable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from wlmap.metrics.accounting import Holding, Usage
from wlmap.metrics.exposition import escape, format_value, header
from wlmap.metrics.families import EXPORTER, USAGE, WORKLOAD, node_family
from wlmap.metrics.node_series import (
    DEFAULT_DOMAIN_KEYS,
    NodeState,
    Shape,
    domain_label,
    fragmented_gpus,
    pod_shape,
    read_node,
)
from wlmap.metrics.pod_facts import PodFacts, pod_facts
from wlmap.metrics.workload_series import (
    Identity,
    Rendered,
    failed_block,
    identity_of,
    render_workload,
    retitled,
)
from wlmap.workload import WorkloadView

__all__ = ["DEFAULT_COMPONENT_CAP", "DEFAULT_TEAM_LABEL", "Checkpoint", "MetricsIndex"]

DEFAULT_COMPONENT_CAP = 64
DEFAULT_TEAM_LABEL = "team"

Checkpoint = dict[str, dict[str, float]]
"""Retired GPU-seconds by group: ``{"namespaces": {...}, "teams": {...}}``."""

PodKey = tuple[str, str, str]  # namespace, name, uid


@dataclass
class _Pod:
    facts: PodFacts
    team: str
    team_since: float | None  # when its hold began to count towards ``team``


@dataclass
class _Workload:
    identity: Identity
    labels: Mapping[str, str]
    pods: dict[PodKey, _Pod] = field(default_factory=dict)
    rendered: Rendered | None = None


def _pod_key(pod: Mapping[str, Any]) -> PodKey:
    metadata = pod.get("metadata") or {}
    return (
        str(metadata.get("namespace") or ""),
        str(metadata.get("name") or ""),
        str(metadata.get("uid") or ""),
    )


class MetricsIndex:
    """Every series the exporter serves, fed per object.

    Args:
        team_label: the label key whose value names a workload's team (read from the
            workload's labels, else its namespace's, else "").
        domain_keys: node label keys written on the node series, one label each.
        component_cap: component instances a workload gets per-component series for.
        clock: the time source of ``now`` when a method is not given one.
    """

    def __init__(
        self,
        *,
        team_label: str = DEFAULT_TEAM_LABEL,
        domain_keys: Iterable[str] = DEFAULT_DOMAIN_KEYS,
        component_cap: int = DEFAULT_COMPONENT_CAP,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.team_label = team_label
        self.domain_keys = tuple(domain_keys)
        self.component_cap = component_cap
        self.clock = clock
        self.synced = False
        self._workloads: dict[Hashable, _Workload] = {}
        self._by_namespace: dict[str, set[Hashable]] = {}
        self._namespace_labels: dict[str, Mapping[str, str]] = {}
        self._nodes: dict[str, NodeState] = {}
        self._on_node: dict[str, dict[tuple[str, str], PodFacts]] = {}
        self._shapes: Counter[Shape] = Counter()
        self._fragmented: dict[str, float] | None = None
        self._namespaces = Usage()
        self._teams = Usage()
        self._errors: Counter[str] = Counter()
        self._dropped = 0
        self._last_scrape = 0.0

    # -- feeding -----------------------------------------------------------------------

    def set_workload(
        self,
        key: Hashable,
        view: WorkloadView,
        pods: Iterable[Mapping[str, Any]] = (),
        *,
        labels: Mapping[str, str] | None = None,
        reasons: Mapping[str, str] | None = None,
        now: float | None = None,
    ) -> None:
        """Add or replace a workload: its view, its pod objects and its object's labels.

        A view that met errors (an expression failed or exceeded its evaluation limits;
        ``view.warnings``) is served as far as it goes and counts one evaluation error of
        its definition.

        Args:
            key: what names the workload to the caller (its uid, or kind/namespace/name);
                the same key replaces it.
            view: its view, interpreted with ``pods``.
            pods: its pod objects (as given to the interpretation).
            labels: the workload object's labels (for its team).
            reasons: why each waiting gang waits, by gang name, when known.
            now: the time of the change (default: the clock).
        """
        now = self.clock() if now is None else now
        labels = labels or {}
        team = self._team(view.namespace or "", labels)
        identity = identity_of(view, team)
        record = self._place(key, identity, labels)
        facts = {_pod_key(p): pod_facts(p) for p in pods}
        self._account(record, facts, now)
        self._render(record, view, reasons or {})
        if view.warnings:  # an expression failed or hit a limit: the view is partial
            self._errors[view.definition] += 1

    def set_failed(
        self,
        key: Hashable,
        obj: Mapping[str, Any],
        definition: str,
        *,
        now: float | None = None,
    ) -> None:
        """A workload its definition could not interpret: its info and the state Unknown
        are served, the definition's error counter goes up, its pods are no longer counted
        (their seconds so far are kept)."""
        self._errors[definition] += 1
        metadata = obj.get("metadata") or {}
        labels = metadata.get("labels") or {}
        namespace = str(metadata.get("namespace") or "")
        api_version = str(obj.get("apiVersion") or "")
        group, _, version = api_version.rpartition("/")
        identity = Identity(
            namespace,
            str(metadata.get("name") or ""),
            str(obj.get("kind") or ""),
            group,
            version,
            definition,
            self._team(namespace, labels),
        )
        record = self._place(key, identity, labels)
        self._account(record, {}, self.clock() if now is None else now)
        self._render(record, None, {})

    def evaluation_failed(self, definition: str) -> None:
        """Count a failure of ``definition`` that names no workload."""
        self._errors[definition] += 1

    def remove_workload(self, key: Hashable, *, now: float | None = None) -> None:
        """Remove a workload and its series; its pods' GPU-seconds so far are kept."""
        record = self._workloads.pop(key, None)
        if record is None:
            return
        self._account(record, {}, self.clock() if now is None else now)
        keys = self._by_namespace.get(record.identity.namespace)
        if keys is not None:
            keys.discard(key)

    def set_node(self, obj: Mapping[str, Any]) -> str | None:
        """Add or replace a node (a Node object). A node without GPUs has no series; one
        that cannot be read is left out, and what is wrong with it is returned."""
        node = read_node(obj)
        name = str((obj.get("metadata") or {}).get("name") or "")
        if isinstance(node, str) or not node.gpus:
            self.remove_node(name)
            return node if isinstance(node, str) else None
        state = NodeState.of(node, self.domain_keys)
        state.pods = self._on_node.setdefault(node.name, {})
        self._nodes[node.name] = state
        self._fragmented = None
        return None

    def remove_node(self, name: str) -> None:
        """Remove a node and its series."""
        if self._nodes.pop(name, None) is not None:
            self._fragmented = None

    def set_namespace_labels(self, namespace: str, labels: Mapping[str, str]) -> None:
        """A namespace's labels, for the team of its workloads that name none."""
        before = self._namespace_labels.get(namespace, {}).get(self.team_label)
        self._namespace_labels[namespace] = dict(labels)
        if labels.get(self.team_label) == before:
            return
        now = self.clock()
        for key in list(self._by_namespace.get(namespace, ())):
            record = self._workloads[key]
            team = self._team(namespace, record.labels)
            if team != record.identity.team:
                old = record.identity
                record.identity = _with_team(old, team)
                self._account(record, {k: p.facts for k, p in record.pods.items()}, now)
                if record.rendered is not None:
                    record.rendered = retitled(record.rendered, old.team, team)

    def checkpoint(self) -> Checkpoint:
        """The retired GPU-seconds a restart cannot read from the cluster (deleted pods)."""
        return {
            "namespaces": dict(self._namespaces.retired),
            "teams": dict(self._teams.retired),
        }

    def restore(self, checkpoint: Mapping[str, Mapping[str, float]]) -> None:
        """Add retired GPU-seconds from a checkpoint written before a restart."""
        self._namespaces.restore(checkpoint.get("namespaces", {}))
        self._teams.restore(checkpoint.get("teams", {}))

    # -- reading -----------------------------------------------------------------------

    def series_by_kind(self) -> dict[str, int]:
        """Series of the workloads of each kind (their pods' join series included)."""
        counts: Counter[str] = Counter()
        for record in self._workloads.values():
            if record.rendered is not None:
                counts[record.identity.kind] += record.rendered.series
        return dict(sorted(counts.items()))

    def gpu_seconds(self, now: float | None = None) -> tuple[dict[str, float], dict[str, float]]:
        """GPU-seconds by namespace and by team up to ``now``."""
        now = self.clock() if now is None else now
        return self._namespaces.seconds(now), self._teams.seconds(now)

    def render(self, now: float | None = None) -> str:
        """The exposition (Prometheus text format 0.0.4) of every series at ``now``.

        Until :attr:`synced` is set, only the exporter's own series are written, with
        ``wlmap_exporter_cache_synced 0``: what the watches have not listed yet would read
        as zeros.
        """
        started = time.perf_counter()
        now = self.clock() if now is None else now
        parts: list[str] = []
        if self.synced:
            self._render_workloads(parts)
            self._render_usage(parts, now)
            self._render_nodes(parts)
        self._render_exporter(parts, started)
        return "".join(parts)

    # -- inside ------------------------------------------------------------------------

    def _team(self, namespace: str, labels: Mapping[str, str]) -> str:
        team = labels.get(self.team_label)
        if team is None:
            team = self._namespace_labels.get(namespace, {}).get(self.team_label)
        return str(team) if team is not None else ""

    def _place(self, key: Hashable, identity: Identity, labels: Mapping[str, str]) -> _Workload:
        record = self._workloads.get(key)
        if record is None:
            record = self._workloads[key] = _Workload(identity, dict(labels))
        else:
            if record.identity.namespace != identity.namespace:
                self._by_namespace.get(record.identity.namespace, set()).discard(key)
            record.identity, record.labels = identity, dict(labels)
        self._by_namespace.setdefault(identity.namespace, set()).add(key)
        return record

    def _render(
        self, record: _Workload, view: WorkloadView | None, reasons: Mapping[str, str]
    ) -> None:
        """Render a workload's series; the view is not kept (a team change re-labels the
        text, see :func:`retitled`)."""
        if view is None:
            record.rendered = failed_block(record.identity)
            return
        facts = {p.facts.name: p.facts for p in record.pods.values()}
        record.rendered = render_workload(
            view, record.identity, facts, cap=self.component_cap, reasons=reasons
        )
        self._dropped += record.rendered.dropped

    def _account(self, record: _Workload, facts: Mapping[PodKey, PodFacts], now: float) -> None:
        """Move the GPU-seconds sums, node occupancy and shapes from the pods the record
        held to ``facts``: pods gone are retired at ``now``, changed ones counted anew.

        A namespace counts a pod from its start; a team counts it from its start, or from
        ``now`` when it came from another team (which keeps what it counted until then).
        """
        team = record.identity.team
        for key in [k for k in record.pods if k not in facts]:
            self._unhold(key, record.pods.pop(key), retire=now, retire_team=now)
        for key, new in facts.items():
            old = record.pods.get(key)
            if old is not None and old.facts == new and old.team == team:
                continue
            since = new.start
            if old is not None:
                moved = old.team != team
                self._unhold(key, old, retire=None, retire_team=now if moved else None)
                if moved and new.start is not None:
                    since = max(new.start, now)
                elif not moved and old.facts.start == new.start:
                    since = old.team_since
            pod = record.pods[key] = _Pod(new, team, since)
            self._hold(key, pod)

    def _hold(self, key: PodKey, pod: _Pod) -> None:
        facts = pod.facts
        if facts.start is not None and facts.gpus:
            self._namespaces.add(facts.namespace, Holding(facts.gpus, facts.start, facts.end))
            if pod.team_since is not None:
                self._teams.add(pod.team, Holding(facts.gpus, pod.team_since, facts.end))
        if facts.holds_node and facts.node is not None:
            self._on_node.setdefault(facts.node, {})[key[:2]] = facts
            self._node_changed(facts.node)
        if facts.end is None and (shape := pod_shape(facts)) is not None:
            self._shapes[shape] += 1
            self._fragmented = None

    def _unhold(
        self, key: PodKey, pod: _Pod, *, retire: float | None, retire_team: float | None
    ) -> None:
        facts = pod.facts
        if facts.start is not None and facts.gpus:
            hold = Holding(facts.gpus, facts.start, facts.end)
            self._namespaces.remove(facts.namespace, hold, retire_at=retire)
            if pod.team_since is not None:
                hold = Holding(facts.gpus, pod.team_since, facts.end)
                self._teams.remove(pod.team, hold, retire_at=retire_team)
        if facts.holds_node and facts.node is not None:
            self._on_node.get(facts.node, {}).pop(key[:2], None)
            self._node_changed(facts.node)
        if facts.end is None and (shape := pod_shape(facts)) is not None:
            self._shapes[shape] -= 1
            if self._shapes[shape] <= 0:
                del self._shapes[shape]
            self._fragmented = None

    def _node_changed(self, name: str) -> None:
        state = self._nodes.get(name)
        if state is not None:
            state.lines = None
        self._fragmented = None

    def _render_workloads(self, parts: list[str]) -> None:
        blocks = [r.rendered.fragments for r in self._workloads.values() if r.rendered]
        for i, family in enumerate(WORKLOAD):
            parts.append(header(family))
            parts.extend(block[i] for block in blocks if block[i])

    def _render_usage(self, parts: list[str], now: float) -> None:
        by = (
            (USAGE[0], "namespace", self._namespaces.seconds(now)),
            (USAGE[1], "team", self._teams.seconds(now)),
            (USAGE[2], "namespace", self._namespaces.held()),
            (USAGE[3], "team", self._teams.held()),
        )
        for family, label, values in by:
            parts.append(header(family))
            parts.extend(
                f'{family.name}{{{label}="{escape(g)}"}} {format_value(v)}\n'
                for g, v in values.items()
            )

    def _render_nodes(self, parts: list[str]) -> None:
        labels = tuple(domain_label(k) for k in self.domain_keys)
        states = [self._nodes[name] for name in sorted(self._nodes)]
        lines = [s.render() for s in states]
        for i, name in enumerate(
            ("node_gpus_allocatable", "node_gpus_allocated", "node_gpus_free")
        ):
            parts.append(header(node_family(name, labels)))
            parts.extend(line[i] for line in lines)
        parts.append(header(node_family("node_gpus_free_fragmented", labels)))
        fragmented = self._fragmentation(states)
        parts.extend(
            f"wlmap_node_gpus_free_fragmented{s.labels} {format_value(fragmented[s.node.name])}\n"
            for s in states
            if s.node.name in fragmented
        )

    def _fragmentation(self, states: list[NodeState]) -> dict[str, float]:
        if self._fragmented is None:
            try:
                values = fragmented_gpus(states, self._shapes)
            except ImportError:  # numpy is the placement extra's; without it, no measure
                values = []
            self._fragmented = {s.node.name: v for s, v in zip(states, values, strict=False)}
        return self._fragmented

    def _render_exporter(self, parts: list[str], started: float) -> None:
        synced, errors, dropped, duration = EXPORTER
        parts.append(header(synced))
        parts.append(f"{synced.name} {int(self.synced)}\n")
        parts.append(header(errors))
        parts.extend(
            f'{errors.name}{{definition="{escape(d)}"}} {n}\n'
            for d, n in sorted(self._errors.items())
        )
        parts.append(header(dropped))
        parts.append(f"{dropped.name} {self._dropped}\n")
        parts.append(header(duration))
        parts.append(f"{duration.name} {format_value(time.perf_counter() - started)}\n")


def _with_team(identity: Identity, team: str) -> Identity:
    return Identity(
        identity.namespace,
        identity.workload,
        identity.kind,
        identity.group,
        identity.version,
        identity.definition,
        team,
    )
