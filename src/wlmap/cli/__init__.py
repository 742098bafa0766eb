"""The ``wlmap`` command line."""

from wlmap.cli.main import main, run

__all__ = ["main", "run"]
