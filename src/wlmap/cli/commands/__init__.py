"""The commands of ``wlmap``, one module each, imported only when run or asked for help.

The table carries each command's one-line help so that ``wlmap --help`` lists the
commands without importing them (and the library they need).
"""

from __future__ import annotations

from typing import NamedTuple


class Declared(NamedTuple):
    """Where a command lives and its one-line help (equal to the command's own)."""

    module: str
    attribute: str
    short_help: str


COMMANDS: dict[str, Declared] = {
    "get": Declared(
        "wlmap.cli.commands.get",
        "get",
        "List workloads of a type, or of every mapped type (files or cluster).",
    ),
    "describe": Declared(
        "wlmap.cli.commands.describe",
        "describe",
        "Show the structure of workloads (files or cluster).",
    ),
    "explain": Declared(
        "wlmap.cli.commands.explain",
        "explain",
        "Explain the status of the workloads in files.",
    ),
    "podgroups": Declared(
        "wlmap.cli.commands.podgroups",
        "podgroups",
        "Gang-scheduling objects for the workloads in files.",
    ),
    "patch": Declared(
        "wlmap.cli.commands.patch",
        "patch",
        "Patch scheduling fields of a component's pods.",
    ),
    "plan": Declared(
        "wlmap.cli.commands.plan",
        "plan",
        "Where a workload's gangs would go on a cluster now, or why not.",
    ),
    "definitions": Declared(
        "wlmap.cli.commands.definitions",
        "definitions",
        "List or show workload definitions.",
    ),
    "validate": Declared(
        "wlmap.cli.commands.validate",
        "validate",
        "Check definition files (optionally against CRDs).",
    ),
    "simulate": Declared(
        "wlmap.cli.commands.simulate",
        "simulate",
        "Place a trace or workloads on a cluster with each policy; plot the results.",
    ),
    "infer": Declared(
        "wlmap.cli.commands.infer",
        "infer_command",
        "Draft a definition from a CRD (and sample objects and pods).",
    ),
    "metrics": Declared(
        "wlmap.cli.commands.metrics",
        "metrics",
        "Prometheus metrics of workloads, nodes and GPU usage (files, or served).",
    ),
    "web": Declared(
        "wlmap.cli.commands.web",
        "web",
        "Serve a read-only web page of the workloads, cluster and simulations.",
    ),
    "export": Declared(
        "wlmap.cli.commands.export",
        "export",
        "Export definitions to another tool's files (argocd).",
    ),
    "test": Declared("wlmap.cli.commands.testing", "test", "Run definition test cases."),
    "completion": Declared(
        "wlmap.cli.commands.completion",
        "completion",
        "Print a shell completion script.",
    ),
}

__all__ = ["COMMANDS", "Declared"]
