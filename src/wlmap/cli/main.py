"""Entry point of ``wlmap``: parse arguments, call the library, hand the view to a renderer.

Exit codes: 0 ok, 1 unexpected error, 2 usage error, 4 no definition covers a type,
5 invalid definition, 6 unreadable manifest.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence

import yaml

from wlmap.catalog import BUILTIN, builtin_registry
from wlmap.definitions import load_definitions
from wlmap.definitions.registry import Registry
from wlmap.errors import DefinitionError, ManifestError, WlmapError
from wlmap.sources import read_manifests
from wlmap.views import render_tree
from wlmap.workload import interpret

EXIT_OK, EXIT_ERROR, EXIT_USAGE, EXIT_NO_DEFINITION, EXIT_INVALID_DEFINITION, EXIT_MANIFEST = (
    0,
    1,
    2,
    4,
    5,
    6,
)

# Kinds that never carry a workload: skipped quietly instead of reported as uncovered.
_NOT_WORKLOADS = frozenset(
    {
        "ConfigMap",
        "Secret",
        "Service",
        "ServiceAccount",
        "Namespace",
        "Role",
        "RoleBinding",
        "ClusterRole",
        "ClusterRoleBinding",
        "PersistentVolumeClaim",
        "PersistentVolume",
        "Ingress",
        "NetworkPolicy",
        "PriorityClass",
        "StorageClass",
        "CustomResourceDefinition",
        "ResourceClaim",
        "ResourceClaimTemplate",
        "DeviceClass",
        "LimitRange",
        "ResourceQuota",
        "PodDisruptionBudget",
        "HorizontalPodAutoscaler",
        "Endpoints",
        "EndpointSlice",
        "ValidatingWebhookConfiguration",
        "MutatingWebhookConfiguration",
        "Event",
    }
)
_CLAIM_KINDS = frozenset({"ResourceClaim", "ResourceClaimTemplate"})


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="wlmap",
        description="Structure, GPUs, status and gangs of any AI workload on Kubernetes.",
        epilog="exit codes: 0 ok, 1 error, 2 usage, 4 no definition for a type, "
        "5 invalid definition, 6 unreadable manifest",
    )
    commands = parser.add_subparsers(dest="command", required=True)
    describe = commands.add_parser("describe", help="show the structure of workloads in files")
    describe.add_argument(
        "-f", "--filename", action="append", required=True, help="file, folder or -"
    )
    describe.add_argument("-o", "--output", choices=("table", "json", "yaml"), default="table")
    describe.add_argument(
        "--definitions", action="append", default=[], help="extra definition file or folder"
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code."""
    args = _parser().parse_args(argv)
    try:
        return _describe(args)
    except DefinitionError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_INVALID_DEFINITION
    except ManifestError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_MANIFEST
    except WlmapError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_ERROR
    except Exception as exc:
        if os.environ.get("WLMAP_TRACEBACK"):
            raise
        print(
            f"error: unexpected {type(exc).__name__}: {exc} (set WLMAP_TRACEBACK=1 for details)",
            file=sys.stderr,
        )
        return EXIT_ERROR


def _registry(extra: Sequence[str]) -> Registry:
    registry = builtin_registry()
    for source in extra:
        registry.extend(load_definitions(source), source)
    return registry


def _describe(args: argparse.Namespace) -> int:
    registry = _registry(args.definitions)
    manifests = read_manifests(args.filename)
    claims = {
        str(m.obj.get("metadata", {}).get("name")): m.obj
        for m in manifests
        if m.obj.get("kind") in _CLAIM_KINDS
    }
    views, texts, uncovered = [], [], 0
    for manifest in manifests:
        obj = manifest.obj
        kind, api_version = obj.get("kind"), obj.get("apiVersion")
        if not isinstance(kind, str) or not isinstance(api_version, str):
            print(
                f"warning: {manifest.origin}: object without apiVersion/kind skipped",
                file=sys.stderr,
            )
            continue
        entry = registry.find(api_version, kind)
        if entry is None:
            if kind not in _NOT_WORKLOADS:
                uncovered += 1
                print(
                    f"warning: {manifest.origin}: no definition covers {kind} ({api_version})",
                    file=sys.stderr,
                )
            continue
        view = interpret(entry.definition, obj, claims=claims)
        views.append(view)
        origin = "built-in" if entry.origin == BUILTIN else entry.origin
        texts.append(render_tree(view, origin))
    if args.output == "table":
        print("\n\n".join(texts))
    else:
        dicts = [v.to_dict() for v in views]
        payload = dicts[0] if len(dicts) == 1 else {"items": dicts, "count": len(dicts)}
        if args.output == "json":
            print(json.dumps(payload, indent=2))
        else:
            print(yaml.safe_dump(payload, sort_keys=False), end="")
    return EXIT_NO_DEFINITION if uncovered and not views else EXIT_OK
