"""Direct readers for status tests: ``and``/``or``/``not``, comparisons, ``any(.a.b[]?;
cond)``, ``length``, ``//``, sums of counts (``[.a[]? | .b // 0] | add``) and the least
or greatest of a few counts (``[.a // 1, .b // 1] | min``) over key chains.

The catalog's status matchers are mostly of this shape, for example::

    .spec.runPolicy.suspend != true
    and any(.status.conditions[]?; .type == "Suspended" and .status == "True")

Each such expression becomes one generated function with exactly one output. Every step
is one jq defines without surprises for ordinary values; where jq would raise an error,
compare values of different kinds (``null < 1``), or compare arrays or objects, the
function raises :class:`~wlmap.workload._direct_values.Fallback` (see that module) and the
general reader takes over.
"""

from __future__ import annotations

from typing import Any

from wlmap.jq import syntax as s


class Unsupported(Exception):
    """The expression is not of a supported shape."""


_ORDER = {"<": "<", "<=": "<=", ">": ">", ">=": ">="}


class Emitter:
    """Writes the statements computing one output per node into ``lines``."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.literals: list[Any] = []
        self.count = 0
        self.looping = False
        # temporaries known to hold a Python bool (tested without the null/false checks)
        self.bools: set[str] = set()
        # (name, key) -> the temporary holding name[key] and the indent it was set at:
        # valid for the lines after it until the code leaves that block
        self.known: dict[tuple[str, str], tuple[str, int]] = {}

    def loop(self) -> None:
        """Enter a loop. Loops are not nested: a direct reader does work in proportion to
        its input, so it needs no deadline (nested loops keep the general reader, which
        checks the time limit)."""
        if self.looping:
            raise Unsupported("a loop inside a loop")
        self.looping = True

    def emit(self, indent: int, line: str) -> None:
        self.at(indent)
        self.lines.append("    " * indent + line)

    def at(self, indent: int) -> None:
        """Code continues at ``indent``: what deeper blocks read is not set on every path."""
        if self.known:
            self.known = {k: v for k, v in self.known.items() if v[1] <= indent}

    def temp(self) -> str:
        self.count += 1
        return f"t{self.count}"

    def boolean(self) -> str:
        """A temporary that will hold a Python bool."""
        out = self.temp()
        self.bools.add(out)
        return out

    def truthy(self, name: str) -> str:
        """A Python test of jq truth: anything but null and false."""
        return name if name in self.bools else f"{name} is not None and {name} is not False"

    def falsy(self, name: str) -> str:
        """A Python test of jq falsehood: null or false."""
        return f"not {name}" if name in self.bools else f"{name} is None or {name} is False"

    def value(self, node: s.Node, var: str, indent: int) -> str:
        """The name holding the output of ``node`` applied to ``var``."""
        if isinstance(node, s.Identity):
            return var
        if isinstance(node, s.Literal):
            self.literals.append(node.value)
            return f"L{len(self.literals) - 1}"
        if isinstance(node, s.Index):
            return self.index(node, var, indent)
        if isinstance(node, s.Binary):
            return self.binary(node, var, indent)
        if isinstance(node, s.And | s.Or):
            return self.logical(node, var, indent)
        if isinstance(node, s.Alternative):
            return self.alternative(node, var, indent)
        if isinstance(node, s.If):
            return self.choice(node, var, indent)
        if isinstance(node, s.Pipe):
            return self.value(node.right, self.value(node.left, var, indent), indent)
        if node == s.Call("not"):
            out = self.boolean()
            self.emit(indent, f"{out} = {self.falsy(var)}")
            return out
        if node == s.Call("length"):
            out = self.temp()
            self.emit(indent, f"{out} = length({var})")
            return out
        if node == s.Call("add"):
            out = self.temp()
            self.emit(indent, f"{out} = add({var})")
            return out
        if node in (s.Call("min"), s.Call("max")):
            out = self.temp()
            self.emit(indent, f"{out} = extreme({var}, {node == s.Call('max')})")
            return out
        if isinstance(node, s.ArrayCons):
            return self.array(node.body, var, indent)
        if isinstance(node, s.Call) and node.name == "any" and len(node.args) == 2:
            return self.any(node.args[0], node.args[1], var, indent)
        raise Unsupported(type(node).__name__)

    def index(self, node: s.Index, var: str, indent: int) -> str:
        key = node.key
        if node.optional or not isinstance(key, s.Literal) or not isinstance(key.value, str):
            raise Unsupported("index")
        target = self.value(node.target, var, indent)
        self.at(indent)
        seen = self.known.get((target, key.value))
        if seen is not None:  # read already on every path to here (evaluation is pure)
            return seen[0]
        out = self.temp()
        self.emit(indent, f"if type({target}) is dict:")
        self.emit(indent + 1, f"{out} = {target}.get({key.value!r})")
        self.emit(indent, f"elif {target} is None:")
        self.emit(indent + 1, f"{out} = None")
        self.emit(indent, "else:")
        self.emit(indent + 1, "raise Fallback")
        self.known[(target, key.value)] = (out, indent)
        return out

    def binary(self, node: s.Binary, var: str, indent: int) -> str:
        if node.op not in ("==", "!=", "+", *_ORDER):
            raise Unsupported(node.op)
        left = self.value(node.left, var, indent)
        right = self.value(node.right, var, indent)
        out = self.temp() if node.op == "+" else self.boolean()
        # against a string or null literal jq's == is Python's (no other value equals it)
        plain = any(
            isinstance(side, s.Literal) and (side.value is None or type(side.value) is str)
            for side in (node.left, node.right)
        )
        if node.op == "==":
            self.emit(
                indent, f"{out} = {left} == {right}" if plain else f"{out} = equal({left}, {right})"
            )
        elif node.op == "!=":
            self.emit(
                indent,
                f"{out} = {left} != {right}" if plain else f"{out} = not equal({left}, {right})",
            )
        elif node.op == "+":
            self.emit(indent, f"{out} = plus({left}, {right})")
        else:
            self.emit(indent, f"{out} = number({left}) {_ORDER[node.op]} number({right})")
        return out

    def logical(self, node: s.And | s.Or, var: str, indent: int) -> str:
        left = self.value(node.left, var, indent)
        out = self.boolean()
        decided = "False" if isinstance(node, s.And) else "True"
        stop = self.falsy(left) if isinstance(node, s.And) else self.truthy(left)
        self.emit(indent, f"if {stop}:")
        self.emit(indent + 1, f"{out} = {decided}")
        self.emit(indent, "else:")
        right = self.value(node.right, var, indent + 1)
        self.emit(indent + 1, f"{out} = {self.truthy(right)}")
        return out

    def alternative(self, node: s.Alternative, var: str, indent: int) -> str:
        left = self.value(node.left, var, indent)
        out = self.temp()
        self.emit(indent, f"if {self.falsy(left)}:")
        right = self.value(node.right, var, indent + 1)
        self.emit(indent + 1, f"{out} = {right}")
        self.emit(indent, "else:")
        self.emit(indent + 1, f"{out} = {left}")
        return out

    def choice(self, node: s.If, var: str, indent: int) -> str:
        """``if c then a else b end`` (no else: the input)."""
        condition = self.value(node.cond, var, indent)
        out = self.temp()
        self.emit(indent, f"if {self.truthy(condition)}:")
        self.emit(indent + 1, f"{out} = {self.value(node.then, var, indent + 1)}")
        self.emit(indent, "else:")
        otherwise = var if node.else_ is None else self.value(node.else_, var, indent + 1)
        self.emit(indent + 1, f"{out} = {otherwise}")
        return out

    def array(self, body: s.Node | None, var: str, indent: int) -> str:
        """``[]``, ``[.a[]?]``, ``[.a[]? | f]`` or ``[f, g, ...]`` of one output each."""
        out = self.temp()
        if isinstance(body, s.Comma):
            parts: list[s.Node] = []
            while isinstance(body, s.Comma):
                parts.append(body.right)
                body = body.left
            parts.append(body)
            values = [self.value(part, var, indent) for part in reversed(parts)]
            self.emit(indent, f"{out} = [{', '.join(values)}]")
            return out
        self.emit(indent, f"{out} = []")
        if body is None:
            return out
        each: s.Node | None = None
        if isinstance(body, s.Pipe):
            each = body.right
            body = body.left
        if not isinstance(body, s.Iterate):
            raise Unsupported("array of something else than an iteration")
        source = self.value(body.target, var, indent)
        item = self.temp()
        self.loop()
        self.emit(indent, f"for {item} in items({source}, {body.optional}):")
        found = item if each is None else self.value(each, item, indent + 1)
        self.emit(indent + 1, f"{out}.append({found})")
        self.looping = False
        return out

    def any(self, generator: s.Node, condition: s.Node, var: str, indent: int) -> str:
        if not isinstance(generator, s.Iterate):
            raise Unsupported("any over something else than an iteration")
        source = self.value(generator.target, var, indent)
        out, item = self.boolean(), self.temp()
        self.emit(indent, f"{out} = False")
        self.loop()
        self.emit(indent, f"for {item} in items({source}, {generator.optional}):")
        holds = self.value(condition, item, indent + 1)
        self.emit(indent + 1, f"if {self.truthy(holds)}:")
        self.emit(indent + 2, f"{out} = True")
        self.emit(indent + 2, "break")
        self.looping = False
        return out


def logic_source(node: s.Node) -> tuple[str, list[Any]] | None:
    """Python source of ``read(value, session=None)`` for ``node`` when every part of it
    is supported, and the literals it refers to as ``L0``, ``L1``...

    ``node`` has one output, or is ``.a[]? | f`` with one output per element.
    """
    emitter = Emitter()
    many = isinstance(node, s.Pipe) and isinstance(node.left, s.Iterate)
    try:
        result = emitter.array(node, "value", 2) if many else emitter.value(node, "value", 2)
    except Unsupported:
        return None
    if many:
        outputs = [
            f"    if len({result}) > MAX:",
            "        return general(value, session)",
            f"    return [int(y) if type(y) is float and y.is_integer() else y for y in {result}]",
        ]
    elif result in emitter.bools:
        outputs = [f"    return [{result}]"]
    else:
        outputs = [
            f"    return [int({result}) if type({result}) is float and {result}.is_integer()"
            f" else {result}]"
        ]
    lines = [
        "def read(value, session=None):",
        "    try:",
        *(emitter.lines or ["        pass"]),
        "    except Fallback:",
        "        return general(value, session)",
        *outputs,
    ]
    return "\n".join(lines) + "\n", emitter.literals
