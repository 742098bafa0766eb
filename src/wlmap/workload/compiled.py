"""A definition prepared for fast repeated use: programs compiled, the tree indexed."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from wlmap import jq
from wlmap.definitions import Definition, Role, expression_sites
from wlmap.definitions.expressions import component_path
from wlmap.definitions.structure import ComponentDefinition
from wlmap.definitions.trust import is_trusted
from wlmap.errors import ExpressionError
from wlmap.workload._direct import direct_reader


@dataclass(frozen=True)
class Expr:
    """A compiled expression that knows where it sits in its definition.

    Outputs share structure with the evaluated object (nothing is copied): wlmap only
    reads them, and views built from them must be treated as read-only.
    """

    program: jq.Program
    definition: str
    component: str | None
    field: str
    read: jq.Reader
    # read by a direct reader (a trusted definition's plain shape, see ``_direct``)
    direct: bool = False

    @property
    def text(self) -> str:
        """The jq source."""
        return self.program.text

    def all(
        self,
        value: Any,
        variables: Mapping[str, Any] | None = None,
        session: jq.Session | None = None,
    ) -> list[Any]:
        """Every output; failures name the definition, component and field.

        ``session`` shares sub-expression results with the other expressions evaluated on
        the same unchanging value (see :class:`jq.Session`).
        """
        try:
            if variables is None:
                return self.read(value, session)
            return self.program.all(value, variables, shared=True)
        except ExpressionError as exc:
            raise self.located(exc) from exc

    def located(self, exc: ExpressionError) -> ExpressionError:
        """``exc`` naming the definition, component and field of this expression."""
        located = exc.located(
            definition=self.definition, component=self.component, field=self.field
        )
        located.__cause__ = exc
        return located

    def first(self, value: Any, variables: Mapping[str, Any] | None = None) -> Any:
        """The first output, or None when there is none."""
        try:
            return self.program.first(value, variables, shared=True)
        except ExpressionError as exc:
            raise exc.located(
                definition=self.definition, component=self.component, field=self.field
            ) from exc

    def paths(
        self, value: Any, variables: Mapping[str, Any] | None = None
    ) -> list[list[str | int]]:
        """The paths the expression designates in ``value`` (for writes)."""
        try:
            return self.program.paths(value, variables)
        except ExpressionError as exc:
            raise exc.located(
                definition=self.definition, component=self.component, field=self.field
            ) from exc


@dataclass(frozen=True)
class CompiledDefinition:
    """A definition with every expression compiled and its component tree indexed.

    Build one with :func:`compile_definition` and reuse it for every object of its kind.
    """

    definition: Definition
    exprs: Mapping[str, Expr]
    components: Mapping[str, ComponentDefinition]
    parent: Mapping[str, str | None]
    children: Mapping[str, tuple[str, ...]]
    depth: Mapping[str, int]
    order: tuple[str, ...]
    pod_bearing: tuple[str, ...] = field(default=())
    bases: Mapping[str, str] = field(default_factory=dict)
    # The definition's name and whether it declares references (read for every object).
    name: str = ""
    references: bool = False
    # Whether some expression is read by an evaluator, which can share sub-expression
    # results through a session (direct readers have none to share).
    shares: bool = True
    # Evaluated in process without bounds (the built-in catalog's, or a caller's engine
    # that is not isolated); an untrusted definition's every evaluation is bounded.
    trusted: bool = False
    # The engine's limit on an expression's outputs (generated readers keep it too).
    max_outputs: int = 0
    # Derived per-definition data the workload modules compute once (e.g. status plans).
    memo: dict[str, Any] = field(default_factory=dict, compare=False)

    def expr(self, path: str) -> Expr | None:
        """The compiled expression at a definition field path, if that field is set."""
        return self.exprs.get(path)

    def ancestors(self, name: str) -> list[str]:
        """The component's ancestors, nearest first."""
        out = []
        current = self.parent.get(name)
        while current is not None:
            out.append(current)
            current = self.parent.get(current)
        return out

    def subtree(self, name: str) -> list[str]:
        """The component and its descendants, in definition order."""
        key = f"subtree:{name}"
        cached: list[str] | None = self.memo.get(key)
        if cached is None:
            found = {name}
            for candidate in self.order:
                if any(a in found for a in self.ancestors(candidate)):
                    found.add(candidate)
            cached = self.memo[key] = [n for n in self.order if n in found]
        return cached


def compile_definition(
    definition: Definition, engine: jq.Engine | None = None
) -> CompiledDefinition:
    """Compile every expression of a (validated) definition and index its tree.

    Without an ``engine``, trusted definitions (the built-in catalog's, see
    :mod:`wlmap.definitions.trust`) use the in-process engine and every other definition
    the untrusted one, bounded in time, memory and output size (``jq.untrusted_engine``).

    Raises:
        ExpressionError: an expression does not compile (it names where it is).
    """
    if engine is None:
        engine = jq.default_engine() if is_trusted(definition) else jq.untrusted_engine()
    exprs: dict[str, Expr] = {}
    shares = False
    for site in expression_sites(definition):
        try:
            program = engine.compile(site.text, verify=False)
        except ExpressionError as exc:
            raise exc.located(
                definition=definition.name, component=site.component, field=site.path
            ) from exc
        read, direct = _reader(program, engine)
        exprs[site.path] = Expr(program, definition.name, site.component, site.path, read, direct)
        shares = shares or not direct
    components = {c.name: c for c in definition.components()}
    parent = {c.name: c.owner_ref for c in definition.components()}
    parent[definition.root.name] = None
    children: dict[str, list[str]] = {name: [] for name in components}
    for name, owner in parent.items():
        if owner is not None and owner in children:
            children[owner].append(name)
    depth = {}
    for name in components:
        level, current = 0, parent.get(name)
        while current is not None and level <= len(components):
            level, current = level + 1, parent.get(current)
        depth[name] = level
    return CompiledDefinition(
        definition=definition,
        exprs=exprs,
        components=components,
        parent=parent,
        children={k: tuple(v) for k, v in children.items()},
        depth=depth,
        order=tuple(components),
        pod_bearing=tuple(c.name for c in definition.components() if c.spec_definition is not None),
        bases={c.name: component_path(definition, c) for c in definition.components()},
        name=definition.name,
        references=bool(definition.spec.structure_definition.references),
        shares=shares,
        trusted=not engine.isolated,
        max_outputs=engine.limits.max_outputs,
    )


def _reader(program: jq.Program, engine: jq.Engine) -> tuple[jq.Reader, bool]:
    """The quickest reader of a program, and whether it is a direct one: for plain key
    chains and simple tests (trusted definitions only: the isolated engine keeps every
    check of its own), else the engine's."""
    general = program.reader()
    if engine.isolated:
        return general, False
    direct = direct_reader(program, general, engine.limits.max_outputs)
    return (general, False) if direct is None else (direct, True)


def component_base(compiled: CompiledDefinition, name: str) -> str:
    """The field path prefix of a component (matches the keys of ``exprs``)."""
    return compiled.bases[name]


_CACHE: OrderedDict[tuple[int, int], tuple[Definition, jq.Engine | None, CompiledDefinition]] = (
    OrderedDict()
)
_CACHE_SIZE = 512
_CACHE_LOCK = threading.Lock()


def prepare(
    definition: Definition | CompiledDefinition, engine: jq.Engine | None = None
) -> CompiledDefinition:
    """The compiled form of a definition, compiled once and cached per definition object
    and engine (the default engine when None)."""
    if isinstance(definition, CompiledDefinition):
        return definition
    key = (id(definition), id(engine))
    with _CACHE_LOCK:  # callers interpret in several threads (the operator)
        hit = _CACHE.get(key)
        if hit is not None and hit[0] is definition and hit[1] is engine:
            _CACHE.move_to_end(key)
            return hit[2]
    compiled = compile_definition(definition, engine)
    with _CACHE_LOCK:
        _CACHE[key] = (definition, engine, compiled)
        if len(_CACHE) > _CACHE_SIZE:
            _CACHE.popitem(last=False)
    return compiled


__all__ = [
    "CompiledDefinition",
    "Expr",
    "Role",
    "compile_definition",
    "component_base",
]
