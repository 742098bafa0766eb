"""``wlmap export TARGET [DEF...]``: definitions as files another tool reads (Argo CD)."""

from __future__ import annotations

from pathlib import Path

import click

from wlmap.app.types import resolve_type
from wlmap.cli._session import Session
from wlmap.cli.commands._base import command
from wlmap.definitions import Definition


@command("export", short_help="Export definitions to another tool's files (argocd).")
@click.argument("target", metavar="TARGET", type=click.Choice(["argocd"]))
@click.argument("types", nargs=-1, metavar="[DEF]...")
@click.option(
    "-d",
    "--output-dir",
    type=click.Path(file_okay=False),
    help="Write the files into this folder instead of printing the ConfigMap patch.",
)
@click.option(
    "--namespace",
    default="argocd",
    show_default=True,
    help="Namespace of Argo CD's argocd-cm ConfigMap.",
)
def export(
    session: Session,
    target: str,
    types: tuple[str, ...],
    output_dir: str | None,
    namespace: str,
) -> None:
    """Export the definitions in use (built-in and --definitions), or those DEF names
    (a kind, plural, kind.group or kind.version.group), as TARGET's files.

    argocd: Argo CD health checks, a `resource.customizations.health.<group>_<Kind>` Lua
    script per kind for `argocd-cm`, as a ConfigMap patch (printed, or written with a
    kustomize component into --output-dir). Without DEF, Kubernetes' own kinds are left
    to Argo CD's built-in checks. Status rules that do not translate are listed on stderr.
    """
    from wlmap.export.argocd_files import argocd_export  # noqa: PLC0415 - when run

    chosen = _chosen(session, types)
    exported = argocd_export(chosen, namespace)
    for refusal in exported.refusals:
        session.output.warn(f"left out of the health check: {refusal}")
    translated, total = exported.coverage
    if output_dir is None:
        session.output.data(exported.patch().rstrip("\n"))
    else:
        folder = Path(output_dir)
        folder.mkdir(parents=True, exist_ok=True)
        for name, text in exported.files().items():
            (folder / name).write_text(text, encoding="utf-8")
        session.output.data(
            f"wrote {', '.join(sorted(exported.files()))} to {folder}: "
            f"{len(exported.scripts)} kinds"
        )
    session.output.warn(
        f"{translated} of {total} status expressions translated"
        + (f" ({total - translated} left out)" if total > translated else "")
    )


def _chosen(session: Session, types: tuple[str, ...]) -> list[Definition]:
    from wlmap.export.argocd_files import default_selection  # noqa: PLC0415 - when run

    registry = session.registry
    if not types:
        return default_selection(e.definition for e in registry)
    chosen = []
    for token in types:
        gvk = resolve_type(registry, token)
        entry = registry.find(gvk.api_version, gvk.kind)
        assert entry is not None  # resolve_type found it there
        chosen.append(entry.definition)
    return chosen
