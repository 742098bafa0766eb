"""The live updates' queue and the event stream a page reads."""

from __future__ import annotations

import io
import json
import threading
import time

from wlmap.web.changes import Changes
from wlmap.web.events import stream
from wlmap.web.filtering import Visible


def put(key: int) -> dict[str, object]:
    return {"op": "put", "row": {"key": key, "apiVersion": "v1", "kind": "Pod"}}


def test_a_reader_gets_what_came_after_the_last_event_it_saw() -> None:
    changes = Changes()
    for key in range(3):
        changes.publish(put(key))
    assert [n for n, _ in changes.after(0, 0) or []] == [1, 2, 3]
    assert [e["row"] for _, e in changes.after(2, 0) or []] == [put(2)["row"]]
    assert changes.after(3, 0.01) == []


def test_a_reader_that_fell_behind_what_is_kept_must_load_again() -> None:
    changes = Changes(kept=2)
    for key in range(5):
        changes.publish(put(key))
    assert changes.after(0, 0) is None
    assert changes.after(2, 0) is None
    assert [n for n, _ in changes.after(3, 0) or []] == [4, 5]


def test_a_waiting_reader_wakes_when_a_change_is_published() -> None:
    changes = Changes()
    threading.Timer(0.05, changes.publish, [put(7)]).start()
    started = time.monotonic()
    found = changes.after(0, 5)
    assert found and found[0][1] == put(7)
    assert time.monotonic() - started < 2


def events(text: str) -> list[tuple[str, str]]:
    """(id, data) of each event written, comments left out."""
    found = []
    for block in text.split("\n\n"):
        fields = dict(
            line.split(": ", 1) for line in block.splitlines() if not line.startswith(":")
        )
        if "data" in fields:
            found.append(
                (fields.get("id", ""), fields.get("event", "message") + " " + fields["data"])
            )
    return found


def test_the_stream_numbers_each_change_and_stops_when_told() -> None:
    changes = Changes()
    changes.publish(put(1))
    changes.publish({"op": "delete", "key": 1})
    out = io.BytesIO()
    rounds = iter([True, False])
    stream(changes, 0, Visible(None, None), out, still=lambda: next(rounds), wait=0)
    written = out.getvalue().decode()
    assert written.startswith("retry: ")
    assert events(written) == [
        ("1", "message " + json.dumps(put(1), separators=(",", ":"))),
        ("2", 'message {"op":"delete","key":1}'),
    ]


def test_a_stream_behind_what_is_kept_tells_the_page_to_reload() -> None:
    changes = Changes(kept=1)
    changes.publish(put(1))
    changes.publish(put(2))
    out = io.BytesIO()
    stream(changes, 0, Visible(None, None), out, still=lambda: True, wait=0)
    assert events(out.getvalue().decode()) == [("2", "reload {}")]
