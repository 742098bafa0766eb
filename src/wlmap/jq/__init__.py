"""The jq engine: parse, check and evaluate jq expressions within hard limits.

Common expressions are evaluated natively in Python with libjq's exact results; the rest
run on libjq, in-process for the built-in catalog (``default_engine``) or in a killable
worker process with a memory cap for every other definition (``untrusted_engine``, an
``Engine(isolated=True)``, whose native evaluation also charges a size budget). A caller
names the lane of an untrusted evaluation (``lane``) to give it its own worker process.
"""

from wlmap.jq._native_base import Session
from wlmap.jq._parser import parse
from wlmap.jq._pool import lane
from wlmap.jq._reader import Reader
from wlmap.jq.cost import costly_constructs
from wlmap.jq.engine import Engine, Program
from wlmap.jq.engines import default_engine, untrusted_engine
from wlmap.jq.limits import Limits
from wlmap.jq.paths import path_problems
from wlmap.jq.safety import unsafe_constructs
from wlmap.jq.syntax import Node

__all__ = [
    "Engine",
    "Limits",
    "Node",
    "Program",
    "Reader",
    "Session",
    "costly_constructs",
    "default_engine",
    "lane",
    "parse",
    "path_problems",
    "unsafe_constructs",
    "untrusted_engine",
]
