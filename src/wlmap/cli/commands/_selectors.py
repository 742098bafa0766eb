"""``-l``: the shared label selectors (:mod:`wlmap.sources.selectors`), refused as a
usage error of the option."""

from __future__ import annotations

import click

from wlmap.sources.selectors import Requirement
from wlmap.sources.selectors import matches as matches_selector
from wlmap.sources.selectors import parse_selector as _parse


def parse_selector(text: str) -> list[Requirement]:
    """Requirements of a ``--selector`` value; a malformed one is a usage error."""
    try:
        return _parse(text)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--selector") from None


__all__ = ["matches_selector", "parse_selector"]
