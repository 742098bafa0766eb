"""Rendering a draft: the definition as YAML with comments on evidence and guesses."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import yaml

from wlmap.infer._evidence import Evidence


class _Dumper(yaml.SafeDumper):
    """Block style, keys in the order the draft builds them."""


def _str(dumper: yaml.SafeDumper, value: str) -> yaml.Node:
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _str)


def render(definition: Mapping[str, Any], evidence: Sequence[Evidence], title: str) -> str:
    """The definition as a YAML document headed by what was inferred and what to review."""
    head = [f"# {title}", "#", "# Drafted by `wlmap infer` from the CRD's schema"]
    head[-1] += " and samples." if any(e.source in ("samples", "pods") for e in evidence) else "."
    review = [e for e in evidence if e.needs_review]
    if review:
        head += ["#", "# Review before use (guesses):"]
        head += [f"#   - {e.subject}: {e.choice} ({e.source}: {e.reason})" for e in review]
    else:
        head += ["#", "# Nothing is a guess; still compare a few objects with `wlmap describe`."]
    body = yaml.dump(
        dict(definition), Dumper=_Dumper, sort_keys=False, default_flow_style=False, width=4096
    )
    guessed_states = {
        "suspended" if e.subject == "suspended" else e.choice.lower()
        for e in review
        if e.subject.startswith(("condition ", "phase", "suspended"))
    }
    lines = []
    in_mappings = False
    for line in body.splitlines():
        stripped = line.strip()
        note = ""
        if stripped == "statusMappings:":
            in_mappings = True
        elif in_mappings and stripped.endswith(":") and stripped[:-1] in guessed_states:
            note = "  # guess: see the review list above"
        elif stripped in ("childComponents:", "suspendDefinition:"):
            in_mappings = False
        lines.append(line + note)
    return "\n".join([*head, *lines]) + "\n"
