"""``wlmap describe -f``: each workload's component tree, resources, status and gangs."""

from __future__ import annotations

from wlmap.cli._exits import NO_DEFINITION, Exit
from wlmap.cli._session import Session
from wlmap.cli.commands._base import command, file_option, output_option
from wlmap.views import render_tree


@command("describe", short_help="Show the structure of the workloads in files.")
@file_option()
@output_option("table", "json", "yaml")
def describe(session: Session, files: tuple[str, ...], fmt: str) -> None:
    """Show every workload in the input: components, pods, GPUs, status and gangs.

    Objects owned by another workload in the input (a Job of a JobSet, a Pod of a
    Deployment) appear under their owner rather than on their own.
    """
    found, uncovered = session.read(files)
    for manifest in uncovered:
        session.output.warn(
            f"{manifest.origin}: no definition covers {manifest.obj.get('kind')} "
            f"({manifest.obj.get('apiVersion')})"
        )
    shown = [f for f in found if f.top_level]
    if fmt == "table":
        session.output.data("\n\n".join(render_tree(f.view, f.origin) for f in shown))
    else:
        items = [f.view.to_dict() for f in shown]
        session.output.document(
            items[0] if len(items) == 1 else {"items": items, "count": len(items)}, fmt
        )
    if uncovered and not shown:
        raise Exit(NO_DEFINITION)
