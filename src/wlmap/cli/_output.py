"""The one object that owns the console: data to stdout, warnings to stderr, progress."""

from __future__ import annotations

import json
import os
import shutil
import sys
from collections.abc import Iterable, Iterator
from typing import Any, TypeVar

from wlmap.views._text import printable

T = TypeVar("T")
PROGRESS_THRESHOLD = 200


class Output:
    """Writes data to stdout and, after it, the collected warnings to stderr.

    Warnings come last so a long table does not scroll them away. Progress is shown only
    on a terminal; in a pipe (or with ``NO_COLOR``/``CI``) the streams stay clean.
    """

    def __init__(self) -> None:
        self.warnings: list[str] = []

    @property
    def width(self) -> int | None:
        """The terminal width, or ``COLUMNS``; None in a pipe (tables are not cut)."""
        if "COLUMNS" in os.environ:
            try:
                return int(os.environ["COLUMNS"])
            except ValueError:
                return None
        if not sys.stdout.isatty():
            return None
        return shutil.get_terminal_size().columns

    def data(self, text: str) -> None:
        """Print data (tables, JSON, YAML) to stdout."""
        if text:
            sys.stdout.write(text if text.endswith("\n") else text + "\n")

    def document(self, payload: Any, fmt: str) -> None:
        """Print a value as JSON or YAML."""
        self.data(self.format(payload, fmt))

    @staticmethod
    def format(payload: Any, fmt: str) -> str:
        """A value as JSON or YAML text."""
        if fmt == "json":
            return json.dumps(payload, indent=2, default=str)
        import yaml  # noqa: PLC0415 - only YAML output needs it

        return yaml.safe_dump(payload, sort_keys=False, default_flow_style=False)

    def warn(self, message: str) -> None:
        """Queue a warning for stderr."""
        self.warnings.append(message)

    def flush(self) -> None:
        """Print the queued warnings."""
        for message in dict.fromkeys(self.warnings):
            sys.stderr.write(f"warning: {printable(message, lines=True)}\n")
        self.warnings.clear()

    def progress(self, items: Iterable[T], total: int, label: str) -> Iterator[T]:
        """Yield the items, drawing a progress line on a terminal for long runs."""
        show = total >= PROGRESS_THRESHOLD and sys.stderr.isatty() and not os.environ.get("CI")
        for index, item in enumerate(items, 1):
            if show and (index % 100 == 0 or index == total):
                sys.stderr.write(f"\r{label} {index}/{total}")
                sys.stderr.flush()
            yield item
        if show:
            sys.stderr.write("\r" + " " * (len(label) + 24) + "\r")
