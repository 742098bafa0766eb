"""Which events of a workload change something its reconciliation reads.

A workload's controller updates its status for nearly every change of its pods (a Job's
``active``, ``ready`` and ``terminating`` counts), and the placement controller's own
condition is status too: for a few thousand pods, tens of thousands of events, each of
which would reconcile the workload again to write nothing new. What the operator writes
(gang objects, pod links, placements) comes from the workload's definition applied to the
workload and its pods; the workload's status enters only through the definition's
``statusDefinition`` (what the view says the workload is doing), from which nothing is
written, unless an expression elsewhere in the definition reads it.

So an event is skipped when its object differs from the one last reconciled cleanly only
in ``status`` and in the server's bookkeeping (``resourceVersion``, ``managedFields``),
and its definition mentions no status outside its ``statusDefinition``. Its pods' changes
bring the workload back on their own (the operator's cache watches them), so the handler
skips events only with cached reads.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from wlmap.definitions import Definition

__all__ = ["ReadKeys", "reads_status"]

BOOKKEEPING = frozenset({"resourceVersion", "managedFields"})
_STATUS_READERS: dict[int, tuple[Definition, bool]] = {}  # id -> (definition, reads status)


def reads_status(definition: Definition) -> bool:
    """Whether any part of the definition but its status mappings mentions ``status``
    (a path, an expression, a field name), so that a status change may change what is
    written."""
    known = _STATUS_READERS.get(id(definition))
    if known is not None and known[0] is definition:
        return known[1]
    data = definition.model_dump(mode="json", by_alias=True, exclude_none=True)
    data.pop("status", None)  # the definition object's own status, not the workload's
    text = json.dumps(_without_status(data))
    result = "status" in text.lower()
    _STATUS_READERS[id(definition)] = (definition, result)
    return result


def _without_status(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_status(v) for k, v in value.items() if k != "statusDefinition"}
    if isinstance(value, list):
        return [_without_status(v) for v in value]
    return value


class ReadKeys:
    """The part of each workload that its last clean reconciliation read, by uid."""

    def __init__(self) -> None:
        self._keys: dict[str, str] = {}

    def unchanged(self, obj: Mapping[str, Any], definition: Definition) -> bool:
        """Whether reconciling ``obj`` again would read nothing new: it was reconciled
        cleanly with everything but its status as it is now, and its definition reads no
        status."""
        known = self._keys.get(_uid(obj))
        return known is not None and known == _key(obj) and not reads_status(definition)

    def reconciled(self, obj: Mapping[str, Any]) -> None:
        """Remember ``obj`` as reconciled cleanly (everything written, nothing refused)."""
        self._keys[_uid(obj)] = _key(obj)

    def forget(self, obj: Mapping[str, Any]) -> None:
        """Reconcile ``obj``'s next event whatever it changes (it failed, or is gone)."""
        self._keys.pop(_uid(obj), None)

    def __len__(self) -> int:
        return len(self._keys)


def _uid(obj: Mapping[str, Any]) -> str:
    return str((obj.get("metadata") or {}).get("uid"))


def _key(obj: Mapping[str, Any]) -> str:
    meta = {k: v for k, v in (obj.get("metadata") or {}).items() if k not in BOOKKEEPING}
    rest = {k: v for k, v in obj.items() if k not in ("metadata", "status")}
    return json.dumps([meta, rest], sort_keys=True, default=str)
