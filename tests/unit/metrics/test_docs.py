"""docs/metrics.md lists every series the exporter writes, with its labels."""

from __future__ import annotations

import re

from tests.unit.cli.runner import ROOT
from wlmap.metrics import all_families
from wlmap.metrics.families import IDENTITY

DOC = ROOT / "docs" / "metrics.md"


def test_every_family_is_documented_with_its_type_and_labels() -> None:
    rows = {
        m["name"]: (m["type"], m["labels"])
        for m in re.finditer(
            r"^\| `(?P<name>wlmap_\w+)` \| (?P<type>\w+) \|(?P<labels>[^|]*)\|",
            DOC.read_text(encoding="utf-8"),
            re.MULTILINE,
        )
    }
    for family in all_families():
        assert family.name in rows, f"{family.name} is not in docs/metrics.md"
        kind, labels = rows[family.name]
        assert kind == family.kind, family.name
        documented = set(re.findall(r"`([a-z_<>]+)`", labels))
        written = set(family.labels)
        if family.labels[: len(IDENTITY)] == IDENTITY:
            written = (written - set(IDENTITY)) | {"<id>"}
        if "node" in written:
            documented.add("node")
        assert documented == written, family.name
    assert set(rows) == {f.name for f in all_families()}  # and nothing that is not written
