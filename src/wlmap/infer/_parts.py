"""Parts reporting their own status: Degraded while one of them is unhealthy or failed.

Controllers of workloads made of parts copy each part's status into their own, as a
list or map of objects with a ``status`` (or ``state``, ``phase``) string: RayService's
``applicationStatuses`` (a Serve application each, ``RUNNING``, ``UNHEALTHY``,
``DEPLOY_FAILED``). A part whose status holds a Degraded or Failed word, while the
workload has not ended and no suspension is asked, leaves the workload running with less
than it should have: Degraded, beside whatever else holds. Condition lists (items with
a ``type``, or a list named ``conditions``) are not parts. The first such collection
below ``.status`` is read; found by shape and vocabulary, offered as a guess.
"""

from __future__ import annotations

from wlmap.definitions.status import GenericStatus
from wlmap.infer._failures import Failures
from wlmap.infer._schema import ITEMS, VALUES, Node, jq_path, show, walk
from wlmap.infer._vocabulary import VOCABULARY

_STATE_FIELDS = ("status", "state", "phase")
_WORDS = "|".join(sorted(VOCABULARY[GenericStatus.DEGRADED] | VOCABULARY[GenericStatus.FAILED]))


def find_parts(status: Node) -> Failures | None:
    """The first list or map of parts with a state string under ``status``, as a test."""
    for node in walk(status):
        if len(node.path) > 5 or node.path[-1] not in (ITEMS, VALUES):
            continue
        if "type" in node.properties or "conditions" in node.path:
            continue
        field = next(
            (f for f in _STATE_FIELDS if (c := node.child(f)) is not None and c.type == "string"),
            None,
        )
        if field is None:
            continue
        collection = jq_path(node.path[:-1], optional=False)
        return Failures.guess(
            f'any({collection}[]?; .{field} // "" | test("{_WORDS}"; "i"))',
            f"{show(node.path)}.{field} unhealthy or failed",
            show(node.path),
            "parts with a status of their own; one unhealthy or failed while the "
            "workload runs leaves it with less than it should have",
        )
    return None
