"""Reading Kubernetes objects from files, folders and standard input (no cluster needed)."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from wlmap.errors import ManifestError
from wlmap.sources.kubeyaml import load_all

_SUFFIXES = (".yaml", ".yml", ".json")


@dataclass(frozen=True)
class Manifest:
    """One object read from a file, with where it came from."""

    obj: dict[str, Any]
    origin: str


def read_manifests(
    sources: Iterable[str], errors: list[ManifestError] | None = None
) -> list[Manifest]:
    """Every object in the given files, folders (recursively) or ``-`` (standard input).

    ``List`` objects (``kubectl get -o yaml``) are unpacked; empty documents are skipped.

    Args:
        sources: paths, folders or ``-``.
        errors: when given, a file that cannot be read or parsed is recorded here and the
            others are still read; otherwise the first such file raises.

    Raises:
        ManifestError: a source does not exist, or (without ``errors``) a file is unreadable.
    """
    found: list[Manifest] = []
    for source in sources:
        for origin, text in _texts(source):
            try:
                found.extend(parse_manifests(text, origin))
            except ManifestError as exc:
                if errors is None:
                    raise
                errors.append(exc)
    return found


def parse_manifests(text: str, origin: str) -> list[Manifest]:
    """Every object in one YAML/JSON text.

    Raises:
        ManifestError: the text is not well-formed, or a document is not an object.
    """
    stripped = text.lstrip()
    if stripped.startswith(("{", "[")):
        # JSON first: YAML rejects JSON that is indented with tabs.
        try:
            return [Manifest(obj, origin) for obj in _objects([json.loads(text)], origin)]
        except (ValueError, RecursionError):
            pass
    try:
        docs = load_all(text)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark
        where = f":{mark.line + 1}:{mark.column + 1}" if mark else ""
        raise ManifestError(f"{origin}{where}: malformed YAML: {exc.problem or exc}") from None
    except (yaml.YAMLError, ValueError, RecursionError) as exc:
        raise ManifestError(f"{origin}: malformed YAML: {exc}") from None
    return [Manifest(obj, origin) for obj in _objects(docs, origin)]


def _objects(docs: Iterable[Any], origin: str) -> Iterator[dict[str, Any]]:
    for index, doc in enumerate(docs):
        if doc is None:
            continue
        if not isinstance(doc, Mapping):
            raise ManifestError(
                f"{origin}: document {index + 1} is a {type(doc).__name__}, expected a Kubernetes object"
            )
        kind = doc.get("kind")
        if isinstance(kind, str) and kind.endswith("List") and isinstance(doc.get("items"), list):
            yield from _objects(doc["items"], origin)
        else:
            yield dict(doc)


def _texts(source: str) -> Iterator[tuple[str, str]]:
    if source == "-":
        yield "<stdin>", sys.stdin.read()
        return
    path = Path(source)
    if path.is_dir():
        files = sorted(p for p in path.rglob("*") if p.is_file() and p.suffix in _SUFFIXES)
    elif path.exists():
        files = [path]
    else:
        raise ManifestError(f"{source}: no such file or directory")
    for file in files:
        try:
            yield str(file), file.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise ManifestError(f"{file}: cannot read: {exc}") from None
