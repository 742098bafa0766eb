"""The JSON Schema and the CRD manifest of the definition format, generated from the models.

Run ``python -m wlmap.definitions.schema DIR`` to write both files into DIR.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import yaml

from wlmap.definitions.document import (
    KARTA_API_VERSIONS,
    KARTA_KIND,
    WLMAP_API_VERSION,
    WLMAP_KIND,
    Definition,
)

SCHEMA_FILE = "workloadmap.schema.json"
CRD_FILE = "wlmap.dev_workloadmaps.yaml"
KARTA_CRD_FILE = "run.ai_kartas.yaml"


def json_schema() -> dict[str, Any]:
    """The JSON Schema of one definition document (Karta or WorkloadMap)."""
    schema = Definition.model_json_schema(by_alias=True, mode="validation")
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    return schema


def crd_manifest(
    api_version: str = WLMAP_API_VERSION, kind: str = WLMAP_KIND, short_name: str = "wlm"
) -> dict[str, Any]:
    """The cluster-scoped CustomResourceDefinition of ``WorkloadMap``, or of ``Karta`` (the
    same schema, for clusters where Workload Map's own CRD is not installed)."""
    schema = json_schema()
    defs = schema.pop("$defs", {})
    spec_schema = _structural(_inline(schema["properties"]["spec"], defs))
    group, version = api_version.split("/")
    plural = kind.lower() + "s"
    return {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": f"{plural}.{group}"},
        "spec": {
            "group": group,
            "names": {
                "kind": kind,
                "listKind": f"{kind}List",
                "plural": plural,
                "singular": kind.lower(),
                "shortNames": [short_name],
            },
            "scope": "Cluster",
            "versions": [
                {
                    "name": version,
                    "served": True,
                    "storage": True,
                    "subresources": {"status": {}},
                    "additionalPrinterColumns": [
                        {
                            "name": "Kind",
                            "type": "string",
                            "jsonPath": ".spec.structureDefinition.rootComponent.kind.kind",
                        },
                        {
                            "name": "Group",
                            "type": "string",
                            "jsonPath": ".spec.structureDefinition.rootComponent.kind.group",
                        },
                        {"name": "Age", "type": "date", "jsonPath": ".metadata.creationTimestamp"},
                    ],
                    "schema": {
                        "openAPIV3Schema": {
                            "type": "object",
                            "required": ["spec"],
                            "properties": {
                                "apiVersion": {"type": "string"},
                                "kind": {"type": "string"},
                                "metadata": {"type": "object"},
                                "spec": spec_schema,
                                "status": {
                                    "type": "object",
                                    "x-kubernetes-preserve-unknown-fields": True,
                                },
                            },
                        }
                    },
                }
            ],
        },
    }


def _inline(node: Any, defs: dict[str, Any]) -> Any:
    if isinstance(node, dict):
        if "$ref" in node:
            return _inline(defs[node["$ref"].rsplit("/", 1)[-1]], defs)
        return {k: _inline(v, defs) for k, v in node.items()}
    if isinstance(node, list):
        return [_inline(v, defs) for v in node]
    return node


def _structural(node: Any) -> Any:
    """Rewrite JSON Schema into the structural OpenAPI subset Kubernetes accepts."""
    if not isinstance(node, dict):
        return node
    options = node.get("anyOf")
    if options is not None:
        kept = [o for o in options if o.get("type") != "null"]
        if len(kept) == 1:
            merged = {k: v for k, v in node.items() if k != "anyOf"}
            merged.update(kept[0])
            single: dict[str, Any] = _structural(merged)
            if len(kept) < len(options) and "default" not in node:
                single["nullable"] = True
            return single
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key in ("title", "$schema"):
            continue
        if key == "additionalProperties" and value is False:
            continue
        if key == "const":
            out["enum"] = [value]
            continue
        if key == "default" and value is None:
            continue
        if key == "properties":
            out[key] = {k: _structural(v) for k, v in value.items()}
        elif key in ("items", "additionalProperties"):
            out[key] = _structural(value)
        else:
            out[key] = value
    return out


def render() -> dict[str, str]:
    """File name -> content of every generated file."""
    return {
        SCHEMA_FILE: json.dumps(json_schema(), indent=2, sort_keys=True) + "\n",
        CRD_FILE: _GENERATED + yaml.safe_dump(crd_manifest(), sort_keys=False),
        KARTA_CRD_FILE: _GENERATED
        + yaml.safe_dump(crd_manifest(KARTA_API_VERSIONS[0], KARTA_KIND, "karta"), sort_keys=False),
    }


_GENERATED = "# Generated from the wlmap definition models; do not edit by hand.\n"


def main(argv: list[str]) -> int:
    """Write the generated files into the folder given as the only argument."""
    if len(argv) != 1:
        print("usage: python -m wlmap.definitions.schema DIR", file=sys.stderr)
        return 2
    folder = Path(argv[0])
    folder.mkdir(parents=True, exist_ok=True)
    for name, content in render().items():
        (folder / name).write_text(content, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
