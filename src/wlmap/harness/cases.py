"""Reading test cases: one YAML file per case, in a folder named after its definition.

A case file holds the input and what the view must say about it::

    description: a JobSet whose every Job is ready
    source: corpus/jobset/tpu-multislice-v6e-jax.yaml (kubernetes-sigs/jobset @ 08dfbdf)
    object: {...}            # the workload, as the API server returns it
    pods: [...]              # optional: pods as the controller creates them
    claims: {name: {...}}    # optional: DRA claims and claim templates by name
    references: {name: {...}}  # optional: objects the definition's references name,
                               # a list for a reference that selects objects
    variables: {...}         # optional: values of $variables
    expect:                  # any subset of the view's JSON (docs/json-output.md)
      phases: [Running]
      totals: {pods: 8, gpus: 8}
    patches:                 # optional write-back expectations
      - component: worker
        changes: {schedulerName: kai-scheduler}
        jsonPatch: [{op: add, path: /spec/..., value: kai-scheduler}]
    suspend: {jsonPatch: [...]}   # optional: the patch that suspends it

The folder layout is ``DIR/<definition name>/<case name>.yaml``; a case may name another
definition with a top-level ``definition:`` key.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from wlmap.errors import ManifestError

_KNOWN_KEYS = frozenset(
    {
        "description",
        "source",
        "references",
        "definition",
        "object",
        "pods",
        "claims",
        "variables",
        "expect",
        "patches",
        "suspend",
        "resume",
    }
)
# libyaml's safe loader when present: the same documents, parsed about ten times faster.
_LOADER: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@dataclass(frozen=True)
class Case:
    """One test case of a definition."""

    name: str
    path: Path
    definition: str
    obj: dict[str, Any]
    expect: dict[str, Any]
    description: str = ""
    source: str = ""
    pods: list[dict[str, Any]] | None = None
    claims: dict[str, dict[str, Any]] | None = None
    references: dict[str, Any] | None = None
    variables: dict[str, Any] | None = None
    patches: list[dict[str, Any]] = field(default_factory=list)
    suspend: dict[str, Any] | None = None
    resume: dict[str, Any] | None = None


def load_cases(folder: str | Path) -> list[Case]:
    """Every case below ``folder`` (``<definition>/<case>.yaml``), sorted by path.

    Raises:
        ManifestError: a case file cannot be read or does not have the case shape.
    """
    root = Path(folder)
    if not root.is_dir():
        raise ManifestError(f"{root}: not a folder of test cases")
    files = sorted(p for p in root.rglob("*") if p.suffix in (".yaml", ".yml") and p.is_file())
    return [_load(path, root) for path in files]


def _load(path: Path, root: Path) -> Case:
    try:
        data = yaml.load(path.read_text(encoding="utf-8"), Loader=_LOADER)
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise ManifestError(f"{path}: cannot read the case: {exc}") from None
    if not isinstance(data, Mapping):
        raise ManifestError(f"{path}: a case is a mapping with at least 'object' and 'expect'")
    unknown = sorted(set(data) - _KNOWN_KEYS)
    if unknown:
        raise ManifestError(f"{path}: unknown case keys {unknown} (known: {sorted(_KNOWN_KEYS)})")
    obj, expect = data.get("object"), data.get("expect")
    if not isinstance(obj, Mapping) or not isinstance(expect, Mapping):
        raise ManifestError(f"{path}: 'object' and 'expect' must both be mappings")
    relative = path.relative_to(root)
    default = relative.parts[0] if len(relative.parts) > 1 else ""
    definition = data.get("definition", default)
    if not isinstance(definition, str) or not definition:
        raise ManifestError(f"{path}: put the case in a folder named after its definition")
    return Case(
        name=str(relative.with_suffix("")),
        path=path,
        definition=definition,
        obj=dict(obj),
        expect=dict(expect),
        description=str(data.get("description", "")),
        source=str(data.get("source", "")),
        pods=_list(data, "pods", path),
        claims=_mapping(data, "claims", path),
        references=_mapping(data, "references", path),
        variables=_mapping(data, "variables", path),
        patches=_list(data, "patches", path) or [],
        suspend=_mapping(data, "suspend", path),
        resume=_mapping(data, "resume", path),
    )


def _list(data: Mapping[str, Any], key: str, path: Path) -> list[dict[str, Any]] | None:
    value = data.get(key)
    if value is None:
        return None
    if not isinstance(value, list) or not all(isinstance(v, Mapping) for v in value):
        raise ManifestError(f"{path}: '{key}' must be a list of objects")
    return [dict(v) for v in value]


def _mapping(data: Mapping[str, Any], key: str, path: Path) -> dict[str, Any] | None:
    value = data.get(key)
    if value is None:
        return None
    if not isinstance(value, Mapping):
        raise ManifestError(f"{path}: '{key}' must be a mapping")
    return dict(value)
