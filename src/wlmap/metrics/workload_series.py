"""A workload's series, rendered once per change into one text fragment per family.

The fragment of family ``i`` is the workload's sample lines of ``WORKLOAD[i]``; the index
joins the fragments of every workload under each family's header, so a scrape copies text
and an update re-renders only the workload that changed.

The current state is one of :data:`STATES`: when the view matched several generic
statuses, the first of :data:`PRECEDENCE` wins (a Degraded or Failed workload is reported
as such even while its Running status also holds); ``Undefined`` when none matched, and
``Unknown`` when the definition could not interpret the object at all.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from wlmap.errors import WlmapError
from wlmap.metrics.exposition import escape, format_value
from wlmap.metrics.families import WORKLOAD
from wlmap.metrics.pod_facts import PodFacts
from wlmap.quantity import quantity_to_number
from wlmap.workload import ComponentView, GangGroup, WorkloadView
from wlmap.workload.gangs import scheduled_gangs

__all__ = [
    "PRECEDENCE",
    "STATES",
    "Identity",
    "Rendered",
    "component_label",
    "failed_block",
    "gang_label",
    "identity_of",
    "render_workload",
    "retitled",
]

PRECEDENCE = (
    "Failed",
    "Degraded",
    "Suspending",
    "Resuming",
    "Suspended",
    "Completed",
    "Running",
    "Initializing",
)
STATES = (*PRECEDENCE, "Undefined", "Unknown")
"""Every state the state set lists, in the order its samples are written."""

_MIG_PROFILE = re.compile(r"(?:\d+c\.)?\d+g\.\d+gb.*")
_INDEX = {family.name: i for i, family in enumerate(WORKLOAD)}


@dataclass(frozen=True, slots=True)
class Identity:
    """The labels that name a workload, and the info series' other labels."""

    namespace: str
    workload: str
    kind: str
    group: str
    version: str
    definition: str
    team: str

    @property
    def labels(self) -> str:
        """The identity label pairs, escaped, without braces."""
        return (
            f'namespace="{escape(self.namespace)}",workload="{escape(self.workload)}",'
            f'kind="{escape(self.kind)}",group="{escape(self.group)}"'
        )


@dataclass(frozen=True, slots=True)
class Rendered:
    """A workload's fragments (one per :data:`~wlmap.metrics.families.WORKLOAD` family), its
    series count and how many component instances the cap left out."""

    fragments: tuple[str, ...]
    series: int
    dropped: int


def identity_of(view: WorkloadView, team: str) -> Identity:
    """The identity of a view, its team given."""
    group, _, version = (view.api_version or "").rpartition("/")
    return Identity(
        view.namespace or "",
        view.name or "",
        view.kind or "",
        group,
        version,
        view.definition,
        team,
    )


def component_label(name: str | None, instance: str | None) -> str:
    """The ``component`` label of an instance: its name, and ``/instance`` when it has one."""
    if name is None:
        return ""
    return name if instance is None else f"{name}/{instance}"


def _state(phases: tuple[str, ...]) -> str:
    return next((s for s in PRECEDENCE if s in phases), "Undefined")


class _Writer:
    def __init__(self, identity: Identity) -> None:
        self.parts: list[list[str]] = [[] for _ in WORKLOAD]
        self.ident = identity.labels
        self.count = 0

    def add(self, family: str, value: float, extra: str = "") -> None:
        labels = f"{self.ident},{extra}" if extra else self.ident
        self.parts[_INDEX[family]].append(f"{family}{{{labels}}} {format_value(value)}\n")
        self.count += 1

    def raw(self, family: str, labels: str, value: float) -> None:
        self.parts[_INDEX[family]].append(f"{family}{{{labels}}} {format_value(value)}\n")
        self.count += 1

    def done(self, dropped: int) -> Rendered:
        return Rendered(tuple("".join(p) for p in self.parts), self.count, dropped)


def _info(out: _Writer, identity: Identity, components: int, state: str) -> None:
    out.add(
        "wlmap_workload_info",
        1,
        f'version="{escape(identity.version)}",definition="{escape(identity.definition)}",'
        f'team="{escape(identity.team)}"',
    )
    out.add("wlmap_workload_components", components)
    for name in STATES:
        out.add("wlmap_workload_state", int(name == state), f'state="{name}"')


def failed_block(identity: Identity) -> Rendered:
    """The series of a workload its definition could not interpret: its info, no
    components, and the state ``Unknown``."""
    out = _Writer(identity)
    _info(out, identity, 0, "Unknown")
    return out.done(0)


def _number(resource: str, value: object) -> float:
    return quantity_to_number(resource, value) if value is not None else 0  # type: ignore[arg-type]  # a Decimal from the view's requests


def _component(out: _Writer, component: ComponentView) -> None:
    label = f'component="{escape(component_label(component.name, component.instance))}"'
    out.add("wlmap_workload_component_pods_desired", component.pods, label)
    if component.pods_ready is not None:
        out.add("wlmap_workload_component_pods_ready", component.pods_ready, label)
    total = component.total
    gpus = quantity_to_number("gpus", total.total_gpus) if total else 0
    out.add("wlmap_workload_component_gpus_requested", gpus, label)
    requests = total.requests if total else {}
    out.add(
        "wlmap_workload_component_cpu_cores_requested", _number("cpu", requests.get("cpu")), label
    )
    out.add(
        "wlmap_workload_component_memory_bytes_requested",
        _number("memory", requests.get("memory")),
        label,
    )
    for key, count in sorted((total.mig if total else {}).items()):
        if _MIG_PROFILE.fullmatch(key):
            family, extra = "wlmap_workload_component_mig_devices_requested", "profile"
        else:
            family, extra = "wlmap_workload_component_dra_devices_requested", "device_class"
        out.add(family, count, f'{label},{extra}="{escape(key)}"')


def _gangs(
    out: _Writer,
    view: WorkloadView,
    pods: Mapping[str, PodFacts],
    reasons: Mapping[str, str],
) -> None:
    try:
        gangs = scheduled_gangs(view.gang_groups)
    except WlmapError:  # a gang that cannot be worked out has no series
        return
    seen: set[str] = set()
    for gang in gangs:
        name = gang_label(gang)
        if name in seen:
            continue
        seen.add(name)
        label = f'gang="{escape(name)}"'
        members = [pods[name] for name in gang.pods or () if name in pods]
        scheduled = sum(1 for p in members if p.bound)
        out.add("wlmap_workload_gang_min_member", gang.min_member, label)
        out.add("wlmap_workload_gang_members_scheduled", scheduled, label)
        if view.pods is None or scheduled >= gang.min_member:
            continue
        waiting = [p for p in members if not p.bound]
        since = min((p.waiting_since for p in waiting if p.waiting_since), default=None)
        if since is not None:
            out.add("wlmap_workload_gang_waiting_since_timestamp_seconds", since, label)
        reason = reasons.get(gang.name) or _reason(waiting, len(members), gang.min_member)
        out.add("wlmap_workload_gang_waiting_reason", 1, f'{label},reason="{escape(reason)}"')


def gang_label(gang: GangGroup) -> str:
    """The ``gang`` label: the gang's name, and ``/`` with its key when the definition
    makes one gang per key (legacy ``podGroups``) or per start stage."""
    return "/".join((gang.name, *gang.key)) if gang.key else gang.name


def _reason(waiting: list[PodFacts], present: int, minimum: int) -> str:
    """The scheduler's reason most of the waiting pods give, else what is missing."""
    said: dict[str, int] = {}
    for pod in waiting:
        if pod.waiting_reason:
            said[pod.waiting_reason] = said.get(pod.waiting_reason, 0) + 1
    if said:
        return max(sorted(said), key=lambda r: said[r])
    return "PodsMissing" if present < minimum else "Pending"


def _pods(
    out: _Writer, identity: Identity, view: WorkloadView, pods: Mapping[str, PodFacts]
) -> None:
    ns = escape(identity.namespace)
    rest = (
        f'workload="{escape(identity.workload)}",kind="{escape(identity.kind)}",'
        f'group="{escape(identity.group)}"'
    )
    team = escape(identity.team)
    for placement in view.pods or ():
        facts = pods.get(placement.name)
        if facts is None or facts.end is not None:
            continue  # an ended pod holds no GPU and no container dcgm-exporter reports
        component = escape(component_label(placement.component, placement.instance))
        pod = escape(placement.name)
        for container, share in facts.containers:
            where = f'namespace="{ns}",pod="{pod}",container="{escape(container)}"'
            out.raw(
                "wlmap_pod_workload_info",
                f'{where},{rest},component="{component}",team="{team}"',
                1,
            )
            if share:
                out.raw("wlmap_pod_gpus", where, share)


def render_workload(
    view: WorkloadView,
    identity: Identity,
    pods: Mapping[str, PodFacts],
    *,
    cap: int,
    reasons: Mapping[str, str] | None = None,
) -> Rendered:
    """Every series of one workload.

    Args:
        view: the workload's view (interpreted with its pods when there are any).
        identity: its labels (:func:`identity_of`).
        pods: facts of its pods by name.
        cap: component instances given series of their own; the rest are counted as
            dropped (the totals still include them).
        reasons: why each waiting gang waits, by gang name, when the caller knows better
            than the pods (the plan's binding constraint).
    """
    out = _Writer(identity)
    shown = [c for c in view.components if not c.absent]
    _info(out, identity, len(shown), _state(view.phases))
    for component in shown[:cap]:
        _component(out, component)
    totals = view.totals
    out.add("wlmap_workload_gpus_requested", quantity_to_number("gpus", totals.total_gpus))
    out.add("wlmap_workload_cpu_cores_requested", _number("cpu", totals.requests.get("cpu")))
    out.add(
        "wlmap_workload_memory_bytes_requested", _number("memory", totals.requests.get("memory"))
    )
    _gangs(out, view, pods, reasons or {})
    _pods(out, identity, view, pods)
    return out.done(max(0, len(shown) - cap))


def retitled(rendered: Rendered, old: str, new: str) -> Rendered:
    """The same series with the team label changed from ``old`` to ``new``.

    The team is the last label of the two families that carry it, so ``team="old"}``
    appears nowhere else: a label value's own quotes are escaped.
    """
    was, now = f'team="{escape(old)}"}}', f'team="{escape(new)}"}}'
    fragments = list(rendered.fragments)
    for family in ("wlmap_workload_info", "wlmap_pod_workload_info"):
        fragments[_INDEX[family]] = fragments[_INDEX[family]].replace(was, now)
    return Rendered(tuple(fragments), rendered.series, 0)
