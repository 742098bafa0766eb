"""The ``wlmap`` command line."""

from wlmap.cli.main import main

__all__ = ["main"]
