"""``wlmap explain -f``: why each workload has the status it has."""

from __future__ import annotations

from wlmap.cli._session import Session
from wlmap.cli.commands._base import command, file_option, output_option
from wlmap.views.explanation import render_explanation, split_gangs


@command("explain", short_help="Explain the status of the workloads in files.")
@file_option()
@output_option("table", "json", "yaml")
def explain(session: Session, files: tuple[str, ...], fmt: str) -> None:
    """Which status rule fired with its evidence, or why none did (nearest misses)."""
    shown = session.workloads(files)
    if fmt == "table":
        session.output.data("\n\n".join(render_explanation(f.view) for f in shown))
        return
    items = [
        {
            "kind": f.view.kind,
            "name": f.view.name,
            "namespace": f.view.namespace,
            "explanation": f.view.explanation.to_dict(),
            **(
                {"gangStages": [g.to_dict() for g in split]}
                if (split := split_gangs(f.view))
                else {}
            ),
        }
        for f in shown
    ]
    session.output.document(
        items[0] if len(items) == 1 else {"items": items, "count": len(items)}, fmt
    )
