"""Splits jq program text into tokens, the way libjq's lexer does.

Strings are lexed as a unit: a ``STRING`` token carries its parts (literal text and the
raw source spans of ``\\(...)`` interpolations, which the parser parses recursively).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from wlmap.errors import ExpressionError

KEYWORDS = frozenset(
    {
        "as", "def", "module", "import", "include", "if", "then", "else", "elif", "reduce",
        "foreach", "end", "and", "or", "try", "catch", "label", "break",
    }
)  # fmt: skip

# Longest operators first, so that "?//" wins over "?" and "//=" over "//".
_OPERATORS = (
    "?//", "//=", "|=", "+=", "-=", "*=", "/=", "%=", "==", "!=", "<=", ">=", "//", "..",
    "|", ",", "=", "<", ">", "+", "-", "*", "/", "%", "(", ")", "[", "]", "{", "}",
    ":", ";", "?", ".", "$",
)  # fmt: skip

_IDENT = r"[a-zA-Z_][a-zA-Z_0-9]*"
_TOKEN_RE = re.compile(
    rf"""
    (?P<space>[ \t\r\n]+|\#[^\n]*)
  | (?P<number>(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)
  | (?P<field>\.{_IDENT})
  | (?P<loc>\$__loc__(?![a-zA-Z_0-9]))
  | (?P<binding>\$(?:{_IDENT}::)*{_IDENT})
  | (?P<ident>(?:{_IDENT}::)*{_IDENT})
  | (?P<format>@[a-zA-Z0-9_]+)
  | (?P<quote>")
  | (?P<op>{"|".join(re.escape(op) for op in _OPERATORS)})
    """,
    re.VERBOSE,
)
_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}
_HEX4 = re.compile(r"[0-9a-fA-F]{4}")


@dataclass(frozen=True)
class Token:
    """One token: ``kind`` is a category, or the operator/keyword text itself."""

    kind: str
    text: str
    pos: int
    # For STRING tokens: literal text (str) and interpolations (source start, end).
    parts: tuple[str | tuple[int, int], ...] = ()


def position(text: str, pos: int) -> str:
    """Render an offset as ``line L, column C`` (both 1-based)."""
    line = text.count("\n", 0, pos) + 1
    column = pos - (text.rfind("\n", 0, pos) + 1) + 1
    return f"line {line}, column {column}"


def syntax_error(text: str, pos: int, message: str) -> ExpressionError:
    """Build the error raised for a syntax error at ``pos``."""
    return ExpressionError(f"syntax error at {position(text, pos)}: {message}", text)


def tokenize(text: str, start: int = 0, end: int | None = None) -> list[Token]:
    """Split ``text[start:end]`` into tokens, ending with an ``EOF`` token.

    Token positions are offsets into the whole of ``text``.
    """
    tokens: list[Token] = []
    pos = start
    stop = len(text) if end is None else end
    while pos < stop:
        match = _TOKEN_RE.match(text, pos, stop)
        if match is None:
            raise syntax_error(text, pos, f"unexpected character {text[pos]!r}")
        kind = match.lastgroup
        assert kind is not None
        if kind == "quote":
            token, pos = _lex_string(text, pos, stop)
            tokens.append(token)
            continue
        value = match.group()
        if (kind == "ident" and value in KEYWORDS) or kind == "op":
            tokens.append(Token(value, value, pos))
        elif kind != "space":
            tokens.append(Token(kind.upper(), value, pos))
        pos = match.end()
    tokens.append(Token("EOF", "", stop))
    return tokens


def _lex_string(text: str, start: int, stop: int) -> tuple[Token, int]:
    """Lex a string starting at the quote at ``start``; return it and the end offset."""
    parts: list[str | tuple[int, int]] = []
    buf: list[str] = []
    pos = start + 1
    while True:
        if pos >= stop:
            raise syntax_error(text, start, "unterminated string")
        char = text[pos]
        if char == '"':
            break
        if char != "\\":
            buf.append(char)
            pos += 1
            continue
        escape = text[pos + 1 : pos + 2]
        if escape == "(":
            if buf:
                parts.append("".join(buf))
                buf = []
            end = _interpolation_end(text, pos + 2, stop)
            parts.append((pos + 2, end))
            pos = end + 1
        elif escape == "u":
            code, pos = _unicode_escape(text, pos)
            buf.append(code)
        elif escape in _ESCAPES:
            buf.append(_ESCAPES[escape])
            pos += 2
        else:
            raise syntax_error(text, pos, "invalid escape in string")
    if buf or not parts:
        parts.append("".join(buf))
    return Token("STRING", text[start : pos + 1], start, tuple(parts)), pos + 1


def _unicode_escape(text: str, pos: int) -> tuple[str, int]:
    """Decode ``\\uXXXX`` at ``pos`` (with a following low surrogate if there is one)."""
    if not _HEX4.fullmatch(text, pos + 2, pos + 6):
        raise syntax_error(text, pos, "invalid \\uXXXX escape")
    code = int(text[pos + 2 : pos + 6], 16)
    pos += 6
    if (
        0xD800 <= code < 0xDC00
        and text.startswith("\\u", pos)
        and _HEX4.fullmatch(text, pos + 2, pos + 6)
    ):
        low = int(text[pos + 2 : pos + 6], 16)
        if 0xDC00 <= low < 0xE000:
            return chr(0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)), pos + 6
    if 0xD800 <= code < 0xE000:
        return "\ufffd", pos
    return chr(code), pos


def _interpolation_end(text: str, pos: int, stop: int) -> int:
    """Return the offset of the ``)`` closing an interpolation whose body starts at ``pos``."""
    depth = 0
    start = pos
    while pos < stop:
        char = text[pos]
        if char == '"':
            _, pos = _lex_string(text, pos, stop)
            continue
        if char == "#":
            newline = text.find("\n", pos)
            pos = stop if newline < 0 or newline > stop else newline
            continue
        if char == "(":
            depth += 1
        elif char == ")":
            if depth == 0:
                return pos
            depth -= 1
        pos += 1
    raise syntax_error(text, start - 2, "unterminated string interpolation")
