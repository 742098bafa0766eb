"""A recursive-descent parser for the jq language, with libjq's operator precedence.

From lowest to highest: ``|`` (right), ``,`` (left), ``//`` (right), assignments
(non-associative), ``or``, ``and``, comparisons (non-associative), ``+ -``, ``* / %``,
unary minus, postfix (``.a``, ``[...]``, ``?``, ``as``). ``def`` and ``label`` start a
pipe; ``Term as $x | body`` takes everything to its right as ``body``.
"""

from __future__ import annotations

from dataclasses import replace

from wlmap.errors import ExpressionError
from wlmap.jq import syntax as s
from wlmap.jq._lexer import KEYWORDS, Token, syntax_error, tokenize
from wlmap.jq._parser_terms import primary

_ASSIGN_OPS = frozenset({"=", "|=", "+=", "-=", "*=", "/=", "%=", "//="})
_COMPARE_OPS = frozenset({"==", "!=", "<", "<=", ">", ">="})
_MAX_DEPTH = 100


def parse(text: str) -> s.Node:
    """Parse a jq program into its syntax tree.

    Raises:
        ExpressionError: on a syntax error; the message gives line and column.
    """
    try:
        return _Parser(text, tokenize(text), 0).program()
    except RecursionError:
        raise ExpressionError("expression is nested too deeply", text) from None


class _Parser:
    def __init__(self, text: str, tokens: list[Token], depth: int) -> None:
        self.text = text
        self.tokens = tokens
        self.i = 0
        self.depth = depth
        # Pipe nesting level at which ``as`` may not start a binding (a fold's source).
        self.pipe_level = 0
        self.no_bind_level = -1

    # -- token helpers -------------------------------------------------------------------
    @property
    def tok(self) -> Token:
        return self.tokens[self.i]

    def peek(self, offset: int = 1) -> Token:
        return self.tokens[min(self.i + offset, len(self.tokens) - 1)]

    def advance(self) -> Token:
        token = self.tokens[self.i]
        self.i += 1
        return token

    def error(self, message: str | None = None, token: Token | None = None) -> ExpressionError:
        if token is None:
            token = self.tok
        if message is None:
            shown = "end of input" if token.kind == "EOF" else repr(token.text)
            message = f"unexpected {shown}"
        return syntax_error(self.text, token.pos, message)

    def expect(self, kind: str) -> Token:
        if self.tok.kind != kind:
            shown = "end of input" if self.tok.kind == "EOF" else repr(self.tok.text)
            raise self.error(f"expected {kind!r} but found {shown}")
        return self.advance()

    def enter(self) -> None:
        self.depth += 1
        if self.depth > _MAX_DEPTH:
            raise self.error("expression is nested too deeply")

    # -- program and directives ----------------------------------------------------------
    def program(self) -> s.Node:
        node = self.directives()
        if self.tok.kind != "EOF":
            raise self.error()
        return node

    def directives(self) -> s.Node:
        token = self.tok
        if token.kind == "module":
            self.advance()
            module_meta = self.pipe()
            self.expect(";")
            return s.Directive("module", None, None, module_meta, self.directives())
        if token.kind in ("import", "include"):
            self.advance()
            path_token = self.expect("STRING")
            path = self.plain_string(path_token)
            alias = None
            if token.kind == "import":
                self.expect("as")
                if self.tok.kind not in ("BINDING", "IDENT"):
                    raise self.error()
                alias = self.advance().text
            meta: s.Node | None = None if self.tok.kind == ";" else self.postfix()
            self.expect(";")
            return s.Directive(token.kind, path, alias, meta, self.directives())
        if token.kind == "EOF":
            raise self.error("empty program")
        return self.pipe()

    def plain_string(self, token: Token) -> str:
        if any(not isinstance(part, str) for part in token.parts):
            raise self.error("import path must be constant", token)
        return "".join(part for part in token.parts if isinstance(part, str))

    # -- expressions, lowest precedence first --------------------------------------------
    def pipe(self) -> s.Node:
        self.enter()
        self.pipe_level += 1
        try:
            if self.tok.kind == "def":
                return self.funcdef()
            if self.tok.kind == "label":
                self.advance()
                name = self.expect("BINDING").text[1:]
                self.expect("|")
                return s.Label(name, self.pipe())
            left = self.comma()
            if self.tok.kind == "|":
                self.advance()
                return s.Pipe(left, self.pipe())
            return left
        finally:
            self.depth -= 1
            self.pipe_level -= 1

    def funcdef(self) -> s.Node:
        self.expect("def")
        name_token = self.advance()
        if name_token.kind != "IDENT" and name_token.kind not in KEYWORDS:
            raise self.error(None, name_token)
        params: list[str] = []
        if self.tok.kind == "(":
            self.advance()
            while True:
                if self.tok.kind not in ("IDENT", "BINDING"):
                    raise self.error()
                params.append(self.advance().text)
                if self.tok.kind == ")":
                    break
                self.expect(";")
            self.advance()
        self.expect(":")
        body = self.pipe()
        self.expect(";")
        rest: s.Node = s.Identity() if self.tok.kind == "EOF" else self.pipe()
        return s.FuncDef(name_token.text, tuple(params), body, rest)

    def comma(self) -> s.Node:
        left = self.alternative()
        while self.tok.kind == ",":
            self.advance()
            right = self.pipe() if self.tok.kind in ("def", "label") else self.alternative()
            left = s.Comma(left, right)
        return left

    def alternative(self) -> s.Node:
        left = self.assignment()
        if self.tok.kind == "//":
            self.advance()
            return s.Alternative(left, self.alternative())
        return left

    def assignment(self) -> s.Node:
        left = self.logical_or()
        if self.tok.kind in _ASSIGN_OPS:
            op = self.advance().kind
            left = s.Assign(op, left, self.logical_or())
            if self.tok.kind in _ASSIGN_OPS:
                raise self.error()
        return left

    def logical_or(self) -> s.Node:
        left = self.logical_and()
        while self.tok.kind == "or":
            self.advance()
            left = s.Or(left, self.logical_and())
        return left

    def logical_and(self) -> s.Node:
        left = self.comparison()
        while self.tok.kind == "and":
            self.advance()
            left = s.And(left, self.comparison())
        return left

    def comparison(self) -> s.Node:
        left = self.additive()
        if self.tok.kind in _COMPARE_OPS:
            op = self.advance().kind
            left = s.Binary(op, left, self.additive())
            if self.tok.kind in _COMPARE_OPS:
                raise self.error()
        return left

    def additive(self) -> s.Node:
        left = self.multiplicative()
        while self.tok.kind in ("+", "-"):
            op = self.advance().kind
            left = s.Binary(op, left, self.multiplicative())
        return left

    def multiplicative(self) -> s.Node:
        left = self.unary()
        while self.tok.kind in ("*", "/", "%"):
            op = self.advance().kind
            left = s.Binary(op, left, self.unary())
        return left

    def unary(self) -> s.Node:
        return self.postfix()

    # -- postfix terms -------------------------------------------------------------------
    def postfix(self, allow_bind: bool = True) -> s.Node:
        self.enter()
        try:
            return self._postfix(allow_bind)
        finally:
            self.depth -= 1

    def _postfix(self, allow_bind: bool) -> s.Node:
        # ``?`` right after an indexing makes only that indexing optional; after any other
        # term (including a parenthesised indexing) it means ``try``.
        if self.tok.kind == "-":
            # Unary minus binds tighter than any binary operator: ``-. / .`` is ``(-.) / .``.
            self.advance()
            term: s.Node = s.Neg(self.postfix(allow_bind=False))
            return self.binding(term) if allow_bind else term
        indexed = self.tok.kind in ("FIELD", ".")
        term = primary(self)
        while True:
            kind = self.tok.kind
            if kind == "FIELD":
                term = s.Index(term, s.Literal(self.advance().text[1:]))
            elif kind == "." and self.peek().kind in ("STRING", "FORMAT"):
                self.advance()
                term = s.Index(term, self.string())
            elif kind == "." and self.peek().kind == "[":
                self.advance()
                term = self.bracket(term)
            elif kind == "[":
                term = self.bracket(term)
            elif kind == "?":
                self.advance()
                if indexed and isinstance(term, s.Index | s.Slice | s.Iterate):
                    term = replace(term, optional=True)
                else:
                    term = s.Try(term)
                indexed = False
                continue
            else:
                return self.binding(term) if allow_bind else term
            indexed = True

    def binding(self, term: s.Node) -> s.Node:
        """``term as $x | body`` when ``as`` follows, else ``term`` itself."""
        if self.tok.kind != "as" or self.no_bind_level == self.pipe_level:
            return term
        self.advance()
        patterns = self.patterns()
        self.expect("|")
        return s.Bind(term, patterns, self.pipe())

    def bracket(self, term: s.Node) -> s.Node:
        self.expect("[")
        if self.tok.kind == "]":
            self.advance()
            return s.Iterate(term)
        if self.tok.kind == ":":
            self.advance()
            end = self.pipe()
            self.expect("]")
            return s.Slice(term, None, end)
        index = self.pipe()
        if self.tok.kind == ":":
            self.advance()
            if self.tok.kind == "]":
                self.advance()
                return s.Slice(term, index, None)
            end = self.pipe()
            self.expect("]")
            return s.Slice(term, index, end)
        self.expect("]")
        return s.Index(term, index)

    def string(self) -> s.Node:
        fmt = None
        if self.tok.kind == "FORMAT":
            fmt = self.advance().text[1:]
        token = self.expect("STRING")
        parts: list[str | s.Node] = []
        for part in token.parts:
            if isinstance(part, str):
                parts.append(part)
            else:
                start, end = part
                inner = _Parser(self.text, tokenize(self.text, start, end), self.depth + 1)
                node = inner.pipe()
                if inner.tok.kind != "EOF":
                    raise inner.error()
                parts.append(node)
        if fmt is None and len(parts) == 1 and isinstance(parts[0], str):
            return s.Literal(parts[0])
        return s.StringInterp(tuple(parts), fmt)

    # -- destructuring patterns ----------------------------------------------------------
    def patterns(self) -> tuple[s.Pattern, ...]:
        found = [self.pattern()]
        while self.tok.kind == "?//":
            self.advance()
            found.append(self.pattern())
        return tuple(found)

    def pattern(self) -> s.Pattern:
        self.enter()
        try:
            if self.tok.kind == "BINDING":
                return s.VarPattern(self.advance().text[1:])
            if self.tok.kind == "[":
                self.advance()
                elements = [self.pattern()]
                while self.tok.kind == ",":
                    self.advance()
                    elements.append(self.pattern())
                self.expect("]")
                return s.ArrayPattern(tuple(elements))
            if self.tok.kind == "{":
                self.advance()
                entries = [self.object_pattern_entry()]
                while self.tok.kind == ",":
                    self.advance()
                    entries.append(self.object_pattern_entry())
                self.expect("}")
                return s.ObjectPattern(tuple(entries))
            raise self.error()
        finally:
            self.depth -= 1

    def object_pattern_entry(self) -> s.ObjectPatternEntry:
        kind = self.tok.kind
        if kind == "BINDING":
            name = self.advance().text[1:]
            if self.tok.kind == ":":
                self.advance()
                return s.ObjectPatternEntry(None, name, self.pattern())
            return s.ObjectPatternEntry(None, name, None)
        key: s.Node
        if kind == "IDENT" or kind in KEYWORDS:
            key = s.Literal(self.advance().text)
        elif kind in ("STRING", "FORMAT"):
            key = self.string()
        elif kind == "(":
            self.advance()
            key = self.pipe()
            self.expect(")")
        else:
            raise self.error()
        self.expect(":")
        return s.ObjectPatternEntry(key, None, self.pattern())
