"""docs/catalog.md, generated from the built-in definitions.

Run ``python -m wlmap.catalog.reference FILE`` to write it (``make docs``).
"""

from __future__ import annotations

import sys
from collections import defaultdict
from pathlib import Path

from wlmap.catalog import builtin_definitions
from wlmap.definitions import Definition

HEADER = """# Built-in catalog

Generated from `src/wlmap/catalog/definitions/` by `make docs`; do not edit by hand.
Each definition is written from its operator's own source; the facts and the upstream
commits are in [catalog-facts.md](catalog-facts.md) and [catalog-facts/](catalog-facts/).

"""


def _statuses(definition: Definition) -> str:
    status = definition.root.status_definition
    if status is None:
        return ""
    return ", ".join(s.value for s, _ in status.status_mappings.entries())


def _tree(definition: Definition) -> str:
    children: dict[str | None, list[str]] = defaultdict(list)
    for component in definition.components():
        children[component.owner_ref].append(component.name)

    def render(name: str) -> str:
        below = children.get(name, [])
        return name + (f" ({', '.join(render(c) for c in below)})" if below else "")

    return render(definition.root.name)


def _gangs(definition: Definition) -> str:
    instructions = definition.spec.optimization_instructions
    gang = instructions.gang_scheduling if instructions else None
    if gang is None:
        return ""
    parts = []
    if gang.pod_group is not None:
        subs = ", ".join(s.component_name for s in gang.pod_group.sub_groups)
        stages = gang.pod_group.stages
        parts.append(
            f"podGroup {gang.pod_group.name}"
            + (f" [{subs}]" if subs else "")
            + (f" per start stage of {stages.component_name}" if stages else "")
        )
    parts.extend(f"podGroups {g.name}" for g in gang.pod_groups or ())
    return "; ".join(parts)


def render() -> str:
    """The whole page."""
    definitions = sorted(
        builtin_definitions(), key=lambda d: (str(d.root_gvk.group if d.root_gvk else ""), d.name)
    )
    lines = [
        HEADER,
        f"{len(definitions)} definitions.",
        "",
        "| Kind | Group | Version | Definition | Components | Statuses | Suspend | Gangs |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for definition in definitions:
        gvk = definition.root_gvk
        suspend = "yes" if any(c.suspend_definition for c in definition.components()) else ""
        lines.append(
            f"| {gvk.kind if gvk else ''} | {(gvk.group or 'core') if gvk else ''} | "
            f"{gvk.version if gvk else ''} | `{definition.name}` | {_tree(definition)} | "
            f"{_statuses(definition)} | {suspend} | {_gangs(definition)} |"
        )
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    """Write the page to the file given as the only argument."""
    if len(argv) != 1:
        print("usage: python -m wlmap.catalog.reference FILE", file=sys.stderr)
        return 2
    Path(argv[0]).write_text(render(), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
