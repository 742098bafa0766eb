"""``wlmap patch -f``: the patch that sets pod scheduling fields of one component."""

from __future__ import annotations

import click

from wlmap.cli._session import Session
from wlmap.cli.commands._base import command, file_option
from wlmap.errors import ManifestError
from wlmap.workload import PodChanges, patch_pods, suspend_patch

_SETTABLE = ("schedulerName", "priorityClassName")


def _pairs(values: tuple[str, ...], option: str) -> dict[str, str | None]:
    """``k=v`` pairs; ``k-`` removes the key (as ``kubectl label`` does)."""
    found: dict[str, str | None] = {}
    for value in values:
        if value.endswith("-") and "=" not in value:
            found[value[:-1]] = None
        elif "=" in value:
            key, text = value.split("=", 1)
            found[key] = text
        else:
            raise click.BadParameter(f"{value!r}: expected KEY=VALUE or KEY-", param_hint=option)
    return found


def _toleration(text: str) -> dict[str, str]:
    fields = _pairs(tuple(text.split(",")), "--add-toleration")
    allowed = {"key", "operator", "value", "effect", "tolerationSeconds"}
    unknown = sorted(set(fields) - allowed)
    if unknown:
        raise click.BadParameter(f"unknown toleration fields {unknown}; use {sorted(allowed)}")
    return {k: v for k, v in fields.items() if v is not None}


@command("patch", short_help="Patch scheduling fields of a component's pods.")
@file_option()
@click.option("--component", help="Component whose pods to change (see `describe`).")
@click.option("--instance", help="Only this instance of the component.")
@click.option(
    "--set",
    "settings",
    multiple=True,
    metavar="FIELD=VALUE",
    help="schedulerName=... or priorityClassName=...",
)
@click.option("--label", "labels", multiple=True, metavar="K=V|K-")
@click.option("--annotation", "annotations", multiple=True, metavar="K=V|K-")
@click.option("--node-selector", "node_selector", multiple=True, metavar="K=V|K-")
@click.option(
    "--add-toleration", "tolerations", multiple=True, metavar="key=K,operator=..,effect=.."
)
@click.option("--scheduling-gate", "gates", multiple=True, metavar="NAME")
@click.option("--suspend", "suspend", flag_value="suspend", help="Suspend natively instead.")
@click.option("--resume", "suspend", flag_value="resume", help="Resume natively instead.")
@click.option(
    "-o",
    "--output",
    "fmt",
    type=click.Choice(["json-patch", "merge-patch", "object"]),
    default="json-patch",
    show_default=True,
)
def patch(
    session: Session,
    files: tuple[str, ...],
    component: str | None,
    instance: str | None,
    settings: tuple[str, ...],
    labels: tuple[str, ...],
    annotations: tuple[str, ...],
    node_selector: tuple[str, ...],
    tolerations: tuple[str, ...],
    gates: tuple[str, ...],
    suspend: str | None,
    fmt: str,
) -> None:
    """Print an RFC 6902 patch (or a merge patch, or the patched object) that changes only
    the given fields, in whatever shape the definition says the pods are described."""
    top = session.workloads(files)
    if len(top) != 1:
        raise ManifestError(f"patch needs exactly one workload in the input, found {len(top)}")
    item = top[0]
    if suspend:
        result = suspend_patch(item.entry.definition, item.manifest.obj, resume=suspend == "resume")
    else:
        if not component:
            raise click.UsageError("--component is required (or use --suspend/--resume)")
        fields = _pairs(settings, "--set")
        unknown = sorted(set(fields) - set(_SETTABLE))
        if unknown:
            raise click.BadParameter(f"cannot --set {unknown}; settable: {sorted(_SETTABLE)}")
        changes = PodChanges(
            scheduler_name=fields.get("schedulerName"),
            priority_class_name=fields.get("priorityClassName"),
            labels=_pairs(labels, "--label"),
            annotations=_pairs(annotations, "--annotation"),
            node_selector=_pairs(node_selector, "--node-selector"),
            tolerations=[_toleration(t) for t in tolerations],
            scheduling_gates=list(gates),
        )
        result = patch_pods(
            item.entry.definition, item.manifest.obj, component, changes, instance=instance
        )
    payload = {
        "json-patch": result.json_patch,
        "merge-patch": result.merge_patch,
        "object": result.patched,
    }[fmt]
    session.output.document(payload, "json")
