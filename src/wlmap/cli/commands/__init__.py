"""The commands of ``wlmap``, one module each."""

from wlmap.cli.commands.completion import completion
from wlmap.cli.commands.definitions import definitions
from wlmap.cli.commands.describe import describe
from wlmap.cli.commands.explain import explain
from wlmap.cli.commands.get import get
from wlmap.cli.commands.patch import patch
from wlmap.cli.commands.podgroups import podgroups
from wlmap.cli.commands.testing import test
from wlmap.cli.commands.validate import validate

COMMANDS = [get, describe, explain, podgroups, patch, definitions, validate, test, completion]

__all__ = ["COMMANDS"]
