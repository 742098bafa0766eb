"""Which field paths a jq expression reads: enough to compare drafted paths with the catalog's.

Not a jq interpreter: pipes carry a path on, alternatives each count, ``select(...)``
keeps the path, ``to_entries[] | .value`` and ``keys[]`` read the collection itself.
Paths are then normalised against the CRD's schema so that a map's concrete keys and a
list's items both read as ``[]``.
"""

from __future__ import annotations

import re

from wlmap.infer._schema import Node

PATH = re.compile(r'(?<![\w$\]"])\.[A-Za-z_]\w*(?:\[\]\??|\??\.[A-Za-z_]\w*|\["[^"]*"\])*')
LITERAL = re.compile(r'"([A-Za-z][\w-]*)"')
# A branch of a conditional that passes its input on unchanged.
_IDENTITY_BRANCH = re.compile(r"\b(then|else)\s+\.\s+(elif|else|end)\b")


def _split(expr: str, sep: str) -> list[str]:
    parts, depth, current, quoted = [], 0, "", False
    for ch in expr:
        if ch == '"':
            quoted = not quoted
        if not quoted:
            depth += ch in "([{"
            depth -= ch in ")]}"
            if ch == sep and depth == 0:
                parts.append(current)
                current = ""
                continue
        current += ch
    parts.append(current)
    return [p.strip() for p in parts]


def _unwrap(part: str) -> str:
    while part.startswith("(") and part.endswith(")") and _depth_ok(part[1:-1]):
        part = part[1:-1].strip()
    return part


def _literal(text: str) -> bool:
    return text in ("[]", "{}", "null", "true", "false") or text.isdigit() or text.startswith('"')


def _depth_ok(inner: str) -> bool:
    depth = 0
    for ch in inner:
        depth += ch in "([{"
        depth -= ch in ")]}"
        if depth < 0:
            return False
    return depth == 0


def reads(expr: str | None, prefix: str = "") -> set[str]:
    """The field paths an expression reads (best effort, enough to compare drafts).

    Pipes carry the path on; ``select(...)`` keeps it; ``to_entries[] | .value`` and
    ``keys[]`` read the collection itself; alternatives (``,`` ``//``) each count, and
    a group of alternative fields mid-pipe (``.a | (.b, .c) | .d``) carries each on. A
    last step with a branch that passes its input on (``if ... then . * $x else . end``)
    gives the path it was piped, changed or not.
    """
    if not expr:
        return set()
    found: set[str] = set()
    alternatives = _split(_unwrap(expr.strip()), ",")
    if len(alternatives) > 1:
        for alt in alternatives:
            found |= reads(alt, prefix)
        return found
    parts = _split(_unwrap(expr.strip()), "|")
    for index, raw in enumerate(parts):
        last = index == len(parts) - 1
        part = _unwrap(raw)
        if part.startswith("select(") or part in ("to_entries[]", ".value"):
            if part == "to_entries[]":
                prefix += "[]"
            continue
        if part in ("keys[]", "keys_unsorted[]", "keys", "keys_unsorted"):
            found.add(prefix + "[]")
            continue
        branches = _split(part, ",")
        if len(branches) > 1 and not last and all(PATH.fullmatch(b) for b in branches):
            # ``.a | (.b, .c) | rest``: the rest reads below each alternative in turn.
            rest = " | ".join(parts[index + 1 :])
            for branch in branches:
                found |= reads(rest, prefix + branch)
            return _clean(found)
        if len(_split(part, "|")) > 1 or len(branches) > 1:
            found |= reads(part, prefix)
            continue
        options = [_unwrap(o) for o in part.split(" // ")]
        paths = [o for o in options if PATH.fullmatch(o)]
        if paths and len(paths) == len([o for o in options if not _literal(o)]):
            if last or len(paths) > 1:
                found.update(prefix + o for o in paths)
            prefix = prefix + paths[0]
            continue
        found.update(prefix + t for t in PATH.findall(part))
        if last and prefix and _IDENTITY_BRANCH.search(part):
            found.add(prefix)  # ``| if ... then . * {...} else . end``: the path itself
    return _clean(found)


def _clean(found: set[str]) -> set[str]:
    return {
        p.replace("?", "").replace("[].value.", "[].")
        for p in found
        if not p.startswith(".metadata")
    }


def normalise(path: str, schema: Node) -> str:
    """``path`` with concrete map keys written as ``[]``, checked against the schema."""
    steps = re.findall(r'\.([A-Za-z_]\w*)|\["([^"]*)"\]|(\[\])', path)
    node: Node | None = schema
    out = ""
    for name, quoted, items in steps:
        step = name or quoted
        if items:
            out += "[]"
            node = (node.items or node.values) if node is not None else None
        elif node is not None and node.child(step) is None and node.values is not None:
            out += "[]"
            node = node.values
        else:
            out += f".{step}"
            node = node.child(step) if node is not None else None
    return out


def norm(expr: str | None, schema: Node) -> set[str]:
    return {normalise(p, schema) for p in reads(expr)}
