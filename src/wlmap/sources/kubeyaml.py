"""YAML as Kubernetes reads it: timestamps stay strings, as they are in the API's JSON."""

from __future__ import annotations

from typing import Any

import yaml

_BASE: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class KubeLoader(_BASE):  # type: ignore[valid-type,misc]  # the base is chosen at import time
    """A safe loader (the C one when available) without YAML's timestamp type."""


KubeLoader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


def load_all(text: str) -> list[Any]:
    """Every document of a YAML text, with Kubernetes semantics."""
    return list(yaml.load_all(text, Loader=KubeLoader))
