"""Reading definitions from YAML or JSON text and files into validated models."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from wlmap.definitions.document import KARTA_KIND, WLMAP_KIND, Definition
from wlmap.errors import DefinitionError, Problem

DEFINITION_KINDS = frozenset({KARTA_KIND, WLMAP_KIND})
LIST_KINDS = frozenset({"List", "KartaList", "WorkloadMapList"})
_SUFFIXES = (".yaml", ".yml", ".json")
# libyaml's safe loader when present: the same documents, parsed several times faster.
_LOADER: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def parse_documents(text: str, origin: str) -> list[Any]:
    """Parse YAML (which includes JSON) into its documents, naming the origin on failure.

    Raises:
        DefinitionError: the text is not well-formed YAML or JSON.
    """
    try:
        return [doc for doc in yaml.load_all(text, Loader=_LOADER) if doc is not None]
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark
        where = f"line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        raise DefinitionError(
            [Problem(origin, where, f"malformed YAML: {exc.problem or exc}")]
        ) from None
    except (yaml.YAMLError, ValueError, RecursionError) as exc:
        raise DefinitionError([Problem(origin, "", f"malformed YAML: {exc}")]) from None


def definition_from_mapping(
    data: Mapping[str, Any], origin: str = "<definition>", *, validate: bool = True
) -> Definition:
    """Build a definition from an already-parsed mapping.

    Args:
        data: the decoded document.
        origin: how to name the definition in problems when it has no ``metadata.name``.
        validate: also apply every validation rule (jq checks included).

    Raises:
        DefinitionError: with every problem found.
    """
    name = _name_of(data, origin)
    try:
        definition = Definition.model_validate(data)
    except ValidationError as exc:
        raise DefinitionError([_problem_from(name, err) for err in exc.errors()]) from None
    if validate:
        from wlmap.definitions.validation import validate_definition  # noqa: PLC0415 - rules on demand

        problems = validate_definition(definition)
        if any(p.severity == "error" for p in problems):
            raise DefinitionError(problems)
    return definition


def parse_definitions(
    text: str, origin: str = "<text>", *, validate: bool = True
) -> list[Definition]:
    """Every definition in a YAML/JSON text (multi-document and List objects allowed).

    Documents of other kinds are an error: a definitions file holds definitions only.

    Raises:
        DefinitionError: with every problem of every document.
    """
    problems: list[Problem] = []
    found: list[Definition] = []
    for index, doc in enumerate(_flatten(parse_documents(text, origin))):
        where = f"{origin}#{index}"
        if not isinstance(doc, Mapping) or doc.get("kind") not in DEFINITION_KINDS:
            kind = doc.get("kind") if isinstance(doc, Mapping) else type(doc).__name__
            problems.append(
                Problem(where, "kind", f"expected kind Karta or WorkloadMap, found {kind!r}")
            )
            continue
        try:
            found.append(definition_from_mapping(doc, where, validate=validate))
        except DefinitionError as exc:
            problems.extend(exc.problems)
    if problems:
        raise DefinitionError(problems)
    return found


def load_definitions(*sources: str | Path, validate: bool = True) -> list[Definition]:
    """Load definitions from files and directories (``*.yaml``, ``*.yml``, ``*.json``).

    Raises:
        DefinitionError: a file cannot be read or holds an invalid definition.
    """
    problems: list[Problem] = []
    found: list[Definition] = []
    for path in _files(sources):
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            problems.append(Problem(str(path), "", f"cannot read: {exc}"))
            continue
        try:
            found.extend(parse_definitions(text, str(path), validate=validate))
        except DefinitionError as exc:
            problems.extend(exc.problems)
    if problems:
        raise DefinitionError(problems)
    return found


def _files(sources: Iterable[str | Path]) -> Iterator[Path]:
    for source in sources:
        path = Path(source)
        if path.is_dir():
            yield from sorted(p for p in path.rglob("*") if p.suffix in _SUFFIXES and p.is_file())
        else:
            yield path


def _flatten(docs: Iterable[Any]) -> Iterator[Any]:
    for doc in docs:
        if isinstance(doc, Mapping) and doc.get("kind") in LIST_KINDS:
            yield from doc.get("items") or []
        else:
            yield doc


def _name_of(data: Mapping[str, Any], origin: str) -> str:
    metadata = data.get("metadata")
    if isinstance(metadata, Mapping) and isinstance(metadata.get("name"), str) and metadata["name"]:
        return str(metadata["name"])
    return origin


def _problem_from(definition: str, error: Any) -> Problem:
    loc = error.get("loc", ())
    path = _render_loc(loc)
    kind = error.get("type", "")
    given = error.get("input")
    if kind == "missing":
        message = "required field is missing"
    elif kind == "extra_forbidden":
        message = "unknown field (not part of the definition format)"
    else:
        message = f"{error.get('msg', 'invalid value')}; got {_short(given)}"
    return Problem(definition, path, message)


def _render_loc(loc: Iterable[Any]) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out


def _short(value: Any) -> str:
    try:
        text = json.dumps(value, default=str)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."
