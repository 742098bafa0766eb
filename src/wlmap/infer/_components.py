"""A component of a draft, as the inference builds it before rendering."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from wlmap.infer._evidence import Evidence

POD = ("", "v1", "Pod")
JOB = ("batch", "v1", "Job")


@dataclass
class Component:
    """A component of the draft before rendering."""

    name: str
    owner: str
    kind: tuple[str, str, str] | None = None
    template_path: str | None = None
    pod_spec_path: str | None = None
    fragments: dict[str, str] | None = None  # fragmentedPodSpecDefinition
    instance_id_path: str | None = None
    replicas_path: str | None = None
    min_replicas_path: str | None = None
    max_replicas_path: str | None = None
    role_key: str | None = None  # the map key or field a static role is known by
    element: tuple[str, ...] | None = None  # the schema path of the object holding the role
    selector: dict[str, Any] = field(default_factory=dict)
    evidence: list[Evidence] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
