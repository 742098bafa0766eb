"""Access to the public GPU cluster traces in ``../shared/traces`` beside the checkout.

Without them, a test that needs one skips with a reason naming the missing file, so a fresh
clone runs the rest of the suite.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

TRACES = Path(
    os.environ.get("WLMAP_TEST_TRACES")
    or Path(__file__).resolve().parents[1].parent / "shared" / "traces"
)


def trace_path(relative: str) -> Path:
    """The path of a trace file; skips the test when it is not beside the checkout."""
    path = TRACES / relative
    if not path.exists():
        pytest.skip(f"../shared/traces/{relative} is not available (trace tests need it)")
    return path


def openb(name: str) -> Path:
    """An openb CSV by its short name: ``gpu_node`` for the node list, else a pod list."""
    if name in ("gpu_node", "all_node"):
        return trace_path(f"openb/openb_node_list_{name}.csv")
    return trace_path(f"openb/openb_pod_list_{name}.csv")
