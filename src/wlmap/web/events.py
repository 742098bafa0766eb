"""The live updates of one open page: server-sent events read from :class:`Changes`.

Each event is one JSON change (``{"op": "put", "row": ...}`` or ``{"op": "delete",
"key": ...}``) with its number as the event id, so a browser that reconnects says where it
was (``Last-Event-ID``) and misses nothing. A row the reader may not see is not sent. When
the changes it missed are no longer kept, the page is told to ``reload`` its document.
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from typing import IO, Any

from wlmap.web.changes import Changes
from wlmap.web.filtering import Visible

__all__ = ["WAIT_SECONDS", "stream"]

WAIT_SECONDS = 5.0
"""How long a stream waits for a change before it writes a comment to keep the
connection open (and checks it should still run)."""


def stream(
    changes: Changes,
    seen: int,
    visible: Visible,
    out: IO[bytes] | io.BufferedIOBase,
    still: Callable[[], bool],
    wait: float = WAIT_SECONDS,
) -> None:
    """Write the changes after ``seen`` to ``out`` until ``still`` says to stop or the
    reader leaves (ConnectionError)."""
    out.write(b"retry: 1000\n\n")
    out.flush()
    while still():
        found = changes.after(seen, wait)
        if found is None:
            out.write(f"id: {changes.last}\nevent: reload\ndata: {{}}\n\n".encode())
            out.flush()
            return
        if not found:
            out.write(b": waiting\n\n")
        for number, event in found:
            seen = number
            if _shown(event, visible):
                out.write(f"id: {number}\ndata: {_json(event)}\n\n".encode())
        out.flush()


def _shown(event: dict[str, Any], visible: Visible) -> bool:
    row = event.get("row")
    return row is None or visible.may_see(row)


def _json(document: Any) -> str:
    return json.dumps(document, separators=(",", ":"), default=str)
