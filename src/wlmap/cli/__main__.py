"""``python -m wlmap.cli``."""

from wlmap.cli import run

run()
