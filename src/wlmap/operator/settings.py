"""Every operator setting in one place, read from the environment (``WLMAP_*``) or flags."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from wlmap.schedulers import TARGETS, kai, volcano, workload_api

# Targets whose objects the operator keeps (Kueue PodSets are not standalone objects).
SYNC_TARGETS = ("kai", "volcano", "workload-api")
FIELD_MANAGER = "wlmap-operator"
WORKLOAD_UID_LABEL = "wlmap.dev/workload-uid"
FALSE_WORDS = frozenset({"false", "0", "no", "off"})

# The gang objects the operator keeps for each target: (apiVersion, kind).
GANG_KINDS: Mapping[str, tuple[tuple[str, str], ...]] = {
    "kai": ((kai.API_VERSION, "PodGroup"),),
    "volcano": ((volcano.API_VERSION, "PodGroup"),),
    "workload-api": (
        (workload_api.API_VERSION, "PodGroup"),
        (workload_api.API_VERSION, "Workload"),
    ),
}

# How each scheduler links a pod to its group: an annotation on the pod. The upstream
# Workload API links through spec.schedulingGroup, which is immutable after creation and
# so can only be set by an admission webhook: the operator leaves those pods alone.
POD_LINKS: Mapping[str, str | None] = {
    "kai": kai.POD_GROUP_ANNOTATION,
    "volcano": volcano.POD_GROUP_ANNOTATION,
    "workload-api": None,
}


@dataclass(frozen=True)
class Settings:
    """How the operator runs.

    Attributes:
        target: which scheduler's gang objects to keep (kai, volcano, workload-api).
        namespaces: namespaces to serve; empty for the whole cluster.
        kubeconfig: kubeconfig file (None: $KUBECONFIG, ~/.kube/config, in-cluster).
        context: kubeconfig context.
        health: address of the liveness endpoint (``http://host:port/path``), or None.
        log_json: structured (JSON) log lines instead of plain text.
        kinds: extra ``Kind.group`` types to serve beyond the catalog (for definitions
            added to the cluster after start, which need a restart otherwise); the
            ``Kind`` is spelled as in its CRD.
        cached_reads: read pods, claims and owners from caches kept by watches; off, every
            reconciliation lists the namespace's pods and fetches their owners (the
            former read path, kept to measure against).
    """

    target: str = "kai"
    namespaces: tuple[str, ...] = ()
    kubeconfig: str | None = None
    context: str | None = None
    health: str | None = "http://0.0.0.0:8080/healthz"
    log_json: bool = True
    kinds: tuple[str, ...] = field(default=())
    cached_reads: bool = True

    def __post_init__(self) -> None:
        if self.target not in SYNC_TARGETS:
            raise ValueError(
                f"target must be one of {', '.join(SYNC_TARGETS)}, not {self.target!r}"
            )
        assert self.target in TARGETS

    @property
    def pod_link(self) -> str | None:
        """The pod annotation that names the group, for this target."""
        return POD_LINKS[self.target]

    @classmethod
    def from_environment(cls, environ: Mapping[str, str] | None = None) -> Settings:
        """Settings from ``WLMAP_TARGET``, ``WLMAP_NAMESPACES`` (comma-separated),
        ``KUBECONFIG``, ``WLMAP_CONTEXT``, ``WLMAP_HEALTH`` (empty: off), ``WLMAP_LOG_FORMAT``
        (json or plain), ``WLMAP_KINDS`` and ``WLMAP_CACHED_READS`` (false: off)."""
        env = os.environ if environ is None else environ
        health = env.get("WLMAP_HEALTH", cls.health or "")
        return cls(
            target=env.get("WLMAP_TARGET", cls.target),
            namespaces=_split(env.get("WLMAP_NAMESPACES", "")),
            kubeconfig=env.get("KUBECONFIG") or None,
            context=env.get("WLMAP_CONTEXT") or None,
            health=health or None,
            log_json=env.get("WLMAP_LOG_FORMAT", "json") != "plain",
            kinds=_split(env.get("WLMAP_KINDS", "")),
            cached_reads=env.get("WLMAP_CACHED_READS", "true").lower() not in FALSE_WORDS,
        )


def parse_kinds(tokens: Iterable[str]) -> list[tuple[str, str]]:
    """``Kind.group`` tokens (``Kind`` alone for the core group) as (group, Kind)."""
    parsed = []
    for token in tokens:
        kind, _, group = token.strip().partition(".")
        if kind:
            parsed.append((group, kind))
    return parsed


def _split(text: str) -> tuple[str, ...]:
    return tuple(part.strip() for part in text.split(",") if part.strip())
