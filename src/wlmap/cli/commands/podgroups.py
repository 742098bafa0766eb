"""``wlmap podgroups -f --target``: the gang-scheduling objects for each workload."""

from __future__ import annotations

from typing import Any

import click
import yaml

from wlmap.cli._exits import GANG_REFUSED, Exit
from wlmap.cli._session import Session
from wlmap.cli.commands._base import command, file_option, output_option
from wlmap.schedulers import TARGETS, gang_refusal


@command("podgroups", short_help="Gang-scheduling objects for the workloads in files.")
@file_option()
@click.option(
    "--target", type=click.Choice(sorted(TARGETS)), required=True, help="Scheduler to target."
)
@output_option("yaml", "json", default="yaml")
def podgroups(session: Session, files: tuple[str, ...], target: str, fmt: str) -> None:
    """KAI PodGroups, Volcano PodGroups, an upstream Workload with PodGroups, or Kueue
    PodSets, derived from each top-level workload's gangs and scale.

    A workload whose gangs cannot be trusted (what they are made of failed to evaluate)
    or cannot run (a minimum above the pods one cluster holds) gets no object, as the
    operator writes none: the others are printed and the exit code is 9.
    """
    objects = []
    refused = False
    for item in session.workloads(files):
        # a gang from failed inputs has the wrong minimum: print none, as the operator writes none
        refusal = gang_refusal(item.view)
        if refusal is not None:
            why = (
                "what its gangs are made of failed to evaluate (warned above), so their "
                "minimum would be wrong"
                if refusal.evaluation_failed
                else refusal.message
            )
            session.output.warn(f"{item.view.kind}/{item.view.name}: no gang objects: {why}")
            refused = True
            continue
        objects.extend(TARGETS[target](item.view, item.manifest.obj))
    if refused:
        if objects:
            _print(session, objects, fmt)
        raise Exit(GANG_REFUSED)
    if not objects:
        session.output.warn(
            "no gang-scheduling objects: no workload in the input asks for a gang of pods"
        )
    _print(session, objects, fmt)


def _print(session: Session, objects: list[dict[str, Any]], fmt: str) -> None:
    if fmt == "json":
        session.output.document({"items": objects, "count": len(objects)}, fmt)
    else:
        session.output.data("---\n".join(yaml.safe_dump(o, sort_keys=False) for o in objects))
