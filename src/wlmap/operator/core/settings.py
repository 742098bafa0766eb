"""Every operator setting in one place, read from the environment (``WLMAP_*``) or flags."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property

from wlmap.operator.core.scope import (
    DEFAULT_NAMESPACE_SELECTOR,
    SYSTEM_NAMESPACES,
    ServedScope,
    parse_selector,
)
from wlmap.schedulers import KEPT_TARGETS, PROFILES, PodLink

# Targets whose objects the operator keeps (Kueue PodSets are not standalone objects).
SYNC_TARGETS = KEPT_TARGETS
FIELD_MANAGER = "wlmap-operator"
WORKLOAD_UID_LABEL = "wlmap.dev/workload-uid"
# Where a pod finds its own namespace (the operator's namespace is never served).
SERVICE_ACCOUNT_NAMESPACE = "/var/run/secrets/kubernetes.io/serviceaccount/namespace"
# The words a boolean WLMAP_* variable may hold; anything else is a mistake worth naming.
TRUE_WORDS = frozenset({"true", "1", "yes", "on"})
FALSE_WORDS = frozenset({"false", "0", "no", "off"})

# The gang objects the operator keeps for each target: (apiVersion, kind).
GANG_KINDS: Mapping[str, tuple[tuple[str, str], ...]] = {
    name: tuple((k.api_version, k.kind) for k in PROFILES[name].kinds) for name in SYNC_TARGETS
}

# How each scheduler links a pod to its group: an annotation or a label the operator
# writes on the pod. The upstream Workload API links through spec.schedulingGroup, which
# is immutable after creation and so can only be set by an admission webhook: the
# operator leaves those pods alone (None).
POD_LINKS: Mapping[str, PodLink | None] = {
    name: link if (link := PROFILES[name].link) is not None and link.writable else None
    for name in SYNC_TARGETS
}


@dataclass(frozen=True)
class Settings:
    """How the operator runs.

    Attributes:
        target: which scheduler's gang objects to keep (one of ``SYNC_TARGETS``).
        namespaces: namespaces to serve; empty: those the namespace selector matches.
        namespace_selector: label selector namespaces must match; None: the default
            (``wlmap.dev/serve=true``) when no namespace is listed, no condition otherwise.
        workload_selector: label selector every served workload must match, or None.
        operator_namespace: the operator's own namespace (never served), or None.
        leader_elect: run as one of several replicas: only the holder of a Lease writes.
        lease_namespace: where the Lease is (None: the operator's namespace, else default).
        lease_seconds: how long a Lease not renewed stays with its holder.
        kubeconfig: kubeconfig file (None: $KUBECONFIG, ~/.kube/config, in-cluster).
        context: kubeconfig context.
        health: address of the liveness endpoint (``http://host:port/path``), or None.
        log_json: structured (JSON) log lines instead of plain text.
        kinds: extra ``Kind.group`` types to serve beyond the catalog (for definitions
            added to the cluster after start, which need a restart otherwise); the
            ``Kind`` is spelled as in its CRD.
        cached_reads: read pods, claims, owners and the operator's own gang objects from
            caches kept by watches; off, every reconciliation lists the namespace's pods,
            fetches their owners and lists the workload's gang objects (the former read
            path, kept to measure against).
        placement: run the placement controller (gate, plan, narrow, release) for the
            namespaces and workloads that opt in with ``wlmap.dev/placement: enabled``.
        placement_levels: node-label keys of the topology levels, coarsest first.
        placement_policy: the gang policy by name (``make_gang_policy``).
        webhook: ``host:port`` where the API server reaches the gating webhook (the
            server listens on that port on every address).
        webhook_managed: kopf keeps the webhook configuration (URL, certificate); off,
            the deployed bundle's configuration is used and only its ``caBundle`` is
            written (``operator.webhooks``).
        metrics_port: the port of the Prometheus metrics (``wlmap.metrics``), served
            from the operator's caches; 0: none are served.
    """

    target: str = "kai"
    namespaces: tuple[str, ...] = ()
    namespace_selector: str | None = None
    workload_selector: str | None = None
    operator_namespace: str | None = None
    leader_elect: bool = False
    lease_namespace: str | None = None
    lease_seconds: float = 15.0
    kubeconfig: str | None = None
    context: str | None = None
    health: str | None = "http://0.0.0.0:8080/healthz"
    log_json: bool = True
    kinds: tuple[str, ...] = field(default=())
    cached_reads: bool = True
    placement: bool = False
    placement_levels: tuple[str, ...] = ()
    placement_policy: str = "wlmap"
    webhook: str = "127.0.0.1:9443"
    webhook_managed: bool = True
    metrics_port: int = 0

    def __post_init__(self) -> None:
        if not 0 <= self.metrics_port <= 65535:
            raise ValueError(f"metrics port must be 0 (off) to 65535, not {self.metrics_port}")
        if self.target not in SYNC_TARGETS:
            raise ValueError(
                f"target must be one of {', '.join(SYNC_TARGETS)}, not {self.target!r}"
            )
        scope = self.scope  # a malformed selector is refused at start, not met per event
        if self.lease_seconds < 3:
            raise ValueError(f"lease seconds must be at least 3, not {self.lease_seconds}")
        if self.namespaces and not scope.namespaces:
            raise ValueError(
                f"every namespace listed is a system namespace: {', '.join(self.namespaces)}"
            )
        if self.placement and not self.placement_levels:
            raise ValueError(
                "placement needs the topology levels: WLMAP_PLACEMENT_LEVELS=KEY,KEY[,...]"
                " (node-label keys, coarsest first)"
            )
        host, _, port = self.webhook.rpartition(":")
        if not host or not port.isdigit():
            raise ValueError(f"webhook address must be host:port, not {self.webhook!r}")

    @property
    def webhook_address(self) -> tuple[str, int]:
        """The gating webhook's host (as the API server names it) and port."""
        host, _, port = self.webhook.rpartition(":")
        return host, int(port)

    @property
    def scope_text(self) -> str:
        """The served scope as one line (replicas serving the same scope share a Lease)."""
        return "|".join(
            (
                ",".join(sorted(self.scope.namespaces)),
                self.effective_namespace_selector or "",
                self.workload_selector or "",
            )
        )

    @property
    def effective_namespace_selector(self) -> str | None:
        """The namespace selector in force: the default when no namespace is listed."""
        if self.namespace_selector is None and not self.namespaces:
            return DEFAULT_NAMESPACE_SELECTOR
        return self.namespace_selector

    @cached_property
    def scope(self) -> ServedScope:
        """The namespaces and workloads served."""
        selector = self.effective_namespace_selector
        own = {self.operator_namespace} if self.operator_namespace else set()
        excluded = SYSTEM_NAMESPACES | own
        return ServedScope(
            namespaces=frozenset(self.namespaces) - excluded,
            namespace_selector=tuple(parse_selector(selector)) if selector else None,
            workload_selector=(
                tuple(parse_selector(self.workload_selector)) if self.workload_selector else None
            ),
            excluded=frozenset(excluded),
        )

    @property
    def pod_link(self) -> PodLink | None:
        """The pod annotation or label that names the group, for this target."""
        return POD_LINKS[self.target]

    @classmethod
    def from_environment(cls, environ: Mapping[str, str] | None = None) -> Settings:
        """Settings from ``WLMAP_TARGET``, ``WLMAP_NAMESPACES`` (comma-separated),
        ``WLMAP_NAMESPACE_SELECTOR``, ``WLMAP_WORKLOAD_SELECTOR``, ``KUBECONFIG``,
        ``WLMAP_CONTEXT``, ``WLMAP_HEALTH`` (empty: off), ``WLMAP_LOG_FORMAT`` (json or
        plain), ``WLMAP_KINDS``, ``WLMAP_LEADER_ELECT``, ``WLMAP_LEASE_NAMESPACE``,
        ``WLMAP_LEASE_SECONDS``, ``WLMAP_CACHED_READS`` (false: off), ``WLMAP_PLACEMENT``
        (true: the placement controller), ``WLMAP_PLACEMENT_LEVELS`` (comma-separated),
        ``WLMAP_PLACEMENT_POLICY``, ``WLMAP_WEBHOOK`` (host:port) and
        ``WLMAP_WEBHOOK_MANAGED`` (false: the bundle's configuration); the operator's
        namespace from ``POD_NAMESPACE`` or the pod's service account.

        Boolean variables take true/false, 1/0, yes/no or on/off in any case; an empty
        variable means its default.

        Raises:
            ValueError: a variable holds a value of the wrong kind; the message names it.
        """
        env = os.environ if environ is None else environ
        health = env.get("WLMAP_HEALTH", cls.health or "")
        return cls(
            target=env.get("WLMAP_TARGET", cls.target),
            namespaces=_split(env.get("WLMAP_NAMESPACES", "")),
            namespace_selector=env.get("WLMAP_NAMESPACE_SELECTOR") or None,
            workload_selector=env.get("WLMAP_WORKLOAD_SELECTOR") or None,
            operator_namespace=env.get("POD_NAMESPACE") or _own_namespace(),
            leader_elect=_flag(env, "WLMAP_LEADER_ELECT", default=False),
            lease_namespace=env.get("WLMAP_LEASE_NAMESPACE") or None,
            lease_seconds=_seconds(env, "WLMAP_LEASE_SECONDS", default=cls.lease_seconds),
            kubeconfig=env.get("KUBECONFIG") or None,
            context=env.get("WLMAP_CONTEXT") or None,
            health=health or None,
            log_json=env.get("WLMAP_LOG_FORMAT", "json") != "plain",
            kinds=_split(env.get("WLMAP_KINDS", "")),
            cached_reads=_flag(env, "WLMAP_CACHED_READS", default=True),
            placement=_flag(env, "WLMAP_PLACEMENT", default=False),
            placement_levels=_split(env.get("WLMAP_PLACEMENT_LEVELS", "")),
            placement_policy=env.get("WLMAP_PLACEMENT_POLICY") or cls.placement_policy,
            webhook=env.get("WLMAP_WEBHOOK") or cls.webhook,
            webhook_managed=_flag(env, "WLMAP_WEBHOOK_MANAGED", default=True),
            metrics_port=_port(env, "WLMAP_METRICS_PORT"),
        )


def _port(env: Mapping[str, str], name: str) -> int:
    text = env.get(name, "").strip()
    try:
        return int(text) if text else 0
    except ValueError:
        raise ValueError(f"{name} must be a port number, not {text!r}") from None


def parse_kinds(tokens: Iterable[str]) -> list[tuple[str, str]]:
    """``Kind.group`` tokens (``Kind`` alone for the core group) as (group, Kind)."""
    parsed = []
    for token in tokens:
        kind, _, group = token.strip().partition(".")
        if kind:
            parsed.append((group, kind))
    return parsed


def _own_namespace() -> str | None:
    try:
        with open(SERVICE_ACCOUNT_NAMESPACE, encoding="utf-8") as file:
            return file.read().strip() or None
    except OSError:
        return None


def _flag(env: Mapping[str, str], name: str, *, default: bool) -> bool:
    text = env.get(name, "").strip().lower()
    if not text:
        return default
    if text in TRUE_WORDS:
        return True
    if text in FALSE_WORDS:
        return False
    raise ValueError(
        f"{name}={env[name]!r} is not a boolean: expected one of "
        f"{', '.join(sorted(TRUE_WORDS))} or {', '.join(sorted(FALSE_WORDS))}"
    )


def _seconds(env: Mapping[str, str], name: str, *, default: float) -> float:
    text = env.get(name, "").strip()
    if not text:
        return default
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 < value < float("inf"):
        raise ValueError(f"{name}={env[name]!r} is not a positive number of seconds")
    return value


def _split(text: str) -> tuple[str, ...]:
    return tuple(part.strip() for part in text.split(",") if part.strip())
