"""``wlmap podgroups -f --target``: the gang-scheduling objects for each workload."""

from __future__ import annotations

import click
import yaml

from wlmap.cli._session import Session
from wlmap.cli.commands._base import command, file_option, output_option
from wlmap.schedulers import TARGETS


@command("podgroups", short_help="Gang-scheduling objects for the workloads in files.")
@file_option()
@click.option(
    "--target", type=click.Choice(sorted(TARGETS)), required=True, help="Scheduler to target."
)
@output_option("yaml", "json", default="yaml")
def podgroups(session: Session, files: tuple[str, ...], target: str, fmt: str) -> None:
    """KAI PodGroups, Volcano PodGroups, an upstream Workload with PodGroups, or Kueue
    PodSets, derived from each top-level workload's gangs and scale."""
    objects = []
    for item in session.workloads(files):
        objects.extend(TARGETS[target](item.view, item.manifest.obj))
    if not objects:
        session.output.warn(
            "no gang-scheduling objects: no workload in the input asks for a gang of pods"
        )
    if fmt == "json":
        session.output.document({"items": objects, "count": len(objects)}, fmt)
    else:
        session.output.data("---\n".join(yaml.safe_dump(o, sort_keys=False) for o in objects))
