"""Hostile definitions: each reproduces a way a definition stalled, exhausted or aborted
wlmap before evaluation of definitions not shipped with it was bounded. Shared by the
library, CLI and validation tests."""

from __future__ import annotations

from typing import Any

import yaml


def _nested(levels: int, width: int) -> str:
    level = "[" + ", ".join([".[]?"] * width) + "]"
    return " | ".join([level] * levels)


# name -> a status expression on a JobSet (expected to give true)
HOSTILE = {
    # exponential backtracking; Python's re cannot be interrupted
    "regex backtracking": '"a" * 5000 + "b" | test("(a|aa)+$")',
    # 30^6 times the replicated jobs
    "array fan-out": "[.spec.replicatedJobs[]?] | " + _nested(6, 30) + " | length > 0",
    # 8 MB of text doubled seven times: 1 GB
    "doubling strings": '"a" * 8000000 | . + . | . + . | . + . | . + . | . + . | . + . '
    "| . + . | length > 0",
    # a function building [., .] applied to its own output: 2^40 values as a tree
    "def fan-out": "def f: [., .]; " + "f | " * 40 + "tojson | length > 0",
    # libjq could not allocate and aborted the process
    "explode": '"a" * 1e8 | explode | length > 0',
}


def hostile_document(expression: str, name: str = "hostile") -> dict[str, Any]:
    """A WorkloadMap for JobSets whose running status is decided by ``expression``."""
    return {
        "apiVersion": "wlmap.dev/v1alpha1",
        "kind": "WorkloadMap",
        "metadata": {"name": name},
        "spec": {
            "structureDefinition": {
                "rootComponent": {
                    "name": "x",
                    "kind": {"group": "jobset.x-k8s.io", "version": "v1alpha2", "kind": "JobSet"},
                    "statusDefinition": {
                        "statusMappings": {
                            "running": [
                                {
                                    "byExpression": {
                                        "expression": expression,
                                        "expectedResult": "true",
                                    }
                                }
                            ]
                        }
                    },
                }
            }
        },
    }


def hostile_yaml(expression: str, name: str = "hostile") -> str:
    """:func:`hostile_document` as YAML text."""
    return yaml.safe_dump(hostile_document(expression, name), sort_keys=False)


FIELD = "spec.structureDefinition.rootComponent.statusDefinition.statusMappings.running[0]"
EXPRESSION_FIELD = f"{FIELD}.byExpression.expression"
