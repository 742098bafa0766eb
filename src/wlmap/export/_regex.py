"""jq regular expressions as Lua patterns, for the subset both express alike.

A pattern is a sequence of literal characters, ``.``, classes (``[A-Z]``, ``\\d``, ``\\w``,
``\\s``), each optionally followed by ``*``, ``+`` or ``?``, with ``^`` and ``$`` at its
ends. Alternation (``a|b``, also in unquantified groups) expands to several patterns, any
of which matches. Anything else (quantified groups, counted repetition, look-arounds,
back-references, flags) is refused. Lua matches bytes, so a quantified ``.`` counts bytes
of a non-ASCII character where Oniguruma counts characters.
"""

from __future__ import annotations

__all__ = ["RegexNotTranslatable", "lua_patterns"]

_MAGIC = set("^$()%.[]*+-?")
_ESCAPES = {"d": "%d", "D": "%D", "s": "%s", "S": "%S", "w": "[%w_]", "W": "[^%w_]"}
_CLASS_ESCAPES = {"d": "%d", "D": "%D", "s": "%s", "S": "%S", "w": "%w_"}
_MAX_PATTERNS = 32


class RegexNotTranslatable(ValueError):
    """The regular expression uses something outside the subset."""


def lua_patterns(regex: str) -> tuple[str, ...]:
    """The Lua patterns that together match what ``regex`` matches.

    Raises:
        RegexNotTranslatable: naming the construct outside the subset.
    """
    alternatives, end = _alternatives(regex, 0)
    if end != len(regex):
        raise RegexNotTranslatable(f"unbalanced ')' at {end}")
    return tuple(dict.fromkeys("".join(parts) for parts in alternatives))


def _alternatives(regex: str, i: int) -> tuple[list[list[str]], int]:
    """Every expansion of the alternation from ``i`` to a ``)`` or the end."""
    found: list[list[str]] = []
    current: list[list[str]] = [[]]
    while i < len(regex) and regex[i] != ")":
        char = regex[i]
        if char == "|":
            found.extend(current)
            current = [[]]
            i += 1
            continue
        if char == "(":
            if regex.startswith("(?", i):
                raise RegexNotTranslatable("a group with options or a look-around")
            inner, i = _alternatives(regex, i + 1)
            if i >= len(regex):
                raise RegexNotTranslatable("an unclosed group")
            i += 1
            if i < len(regex) and regex[i] in "*+?{":
                raise RegexNotTranslatable("a quantified group")
            current = [c + x for c in current for x in inner]
        else:
            item, i = _item(regex, i)
            current = [[*c, item] for c in current]
        if len(current) + len(found) > _MAX_PATTERNS:
            raise RegexNotTranslatable(f"more than {_MAX_PATTERNS} alternatives")
    found.extend(current)
    return found, i


def _item(regex: str, i: int) -> tuple[str, int]:
    char = regex[i]
    if char == "^":
        if i != 0:
            raise RegexNotTranslatable("'^' inside the expression")
        return "^", i + 1
    if char == "$":
        if i != len(regex) - 1:
            raise RegexNotTranslatable("'$' inside the expression")
        return "$", i + 1
    if char in "*+?{":
        raise RegexNotTranslatable(f"{char!r} with nothing to repeat, or counted repetition")
    if char == "[":
        item, i = _class(regex, i + 1)
    elif char == "\\":
        if i + 1 >= len(regex):
            raise RegexNotTranslatable("a trailing backslash")
        escaped = regex[i + 1]
        if escaped in _ESCAPES:
            item = _ESCAPES[escaped]
        elif not escaped.isalnum():
            item = "%" + escaped if escaped in _MAGIC else escaped
        else:
            raise RegexNotTranslatable(f"the escape \\{escaped}")
        i += 2
    elif char == ".":
        item, i = ".", i + 1
    else:
        item, i = ("%" + char if char in _MAGIC else char), i + 1
    if i < len(regex) and regex[i] in "*+?":
        quantifier = regex[i]
        i += 1
        if i < len(regex) and regex[i] in "?+":
            raise RegexNotTranslatable("a lazy or possessive quantifier")
        item += quantifier
    elif i < len(regex) and regex[i] == "{":
        raise RegexNotTranslatable("counted repetition")
    return item, i


def _class(regex: str, i: int) -> tuple[str, int]:
    out = ["["]
    if i < len(regex) and regex[i] == "^":
        out.append("^")
        i += 1
    if i < len(regex) and regex[i] == "]":
        raise RegexNotTranslatable("']' first in a class")
    while i < len(regex) and regex[i] != "]":
        char = regex[i]
        if char == "[":
            raise RegexNotTranslatable("a nested class")
        if char == "\\":
            escaped = regex[i + 1] if i + 1 < len(regex) else ""
            if escaped in _CLASS_ESCAPES:
                out.append(_CLASS_ESCAPES[escaped])
            elif escaped and not escaped.isalnum():
                out.append("%" + escaped)
            else:
                raise RegexNotTranslatable(f"the escape \\{escaped} in a class")
            i += 2
            continue
        out.append("%%" if char == "%" else char)
        i += 1
    if i >= len(regex):
        raise RegexNotTranslatable("an unclosed class")
    out.append("]")
    return "".join(out), i + 1
