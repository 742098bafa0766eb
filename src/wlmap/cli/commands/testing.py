"""``wlmap test DIR``: run definition test cases and show every mismatch."""

from __future__ import annotations

import click

from wlmap.cli._exits import TESTS_FAILED, Exit
from wlmap.cli._session import Session
from wlmap.cli.commands._base import command
from wlmap.harness import load_cases, run_cases


@command("test", short_help="Run definition test cases.")
@click.argument("folder", type=click.Path(exists=True, file_okay=False))
def test(session: Session, folder: str) -> None:
    """Run the cases in FOLDER (``<definition name>/<case>.yaml``) against the definitions in
    use (built-in and --definitions) and report each mismatch."""
    results = run_cases(load_cases(folder), session.registry)
    for result in results:
        status = "PASS" if result.passed else "FAIL"
        session.output.data(f"{status} {result.case.name}")
        for mismatch in result.mismatches:
            session.output.data(f"    {mismatch}")
    failed = sum(not r.passed for r in results)
    session.output.data(f"{len(results) - failed} passed, {failed} failed")
    if failed:
        raise Exit(TESTS_FAILED)
