"""Located reads of one Kubernetes object's fields: every failure names the file, the
object (``Kind namespace/name``) and the field path, and says what was expected."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from wlmap.errors import PlacementInputError


class Fields:
    """Reads fields of one object; :meth:`fail` builds the located error."""

    def __init__(self, obj: Mapping[str, Any], file: str) -> None:
        metadata = obj.get("metadata")
        metadata = metadata if isinstance(metadata, Mapping) else {}
        name = str(metadata.get("name") or "<unnamed>")
        namespace = metadata.get("namespace")
        self.file = file
        self.name = f"{namespace}/{name}" if namespace else name
        self.label = f"{obj.get('kind', 'object')} {self.name}"

    def fail(self, path: str, message: str) -> PlacementInputError:
        """The error for a bad value at ``path``."""
        return PlacementInputError(
            f"{self.label} at {path}: {message}", file=self.file, row=None, column=None
        )

    def mapping(self, value: Any, path: str, *, required: bool = True) -> Mapping[str, Any]:
        """``value`` as a mapping; absent (None) is an empty mapping unless required."""
        if value is None and not required:
            return {}
        if not isinstance(value, Mapping):
            raise self.fail(path, f"expected a mapping, got {value!r}")
        return value

    def items(self, value: Any, path: str) -> list[Any]:
        """``value`` as a list; absent is empty."""
        if value is None:
            return []
        if not isinstance(value, list):
            raise self.fail(path, f"expected a list, got {value!r}")
        return value

    def text(self, value: Any, path: str, *, required: bool = True) -> str:
        """``value`` as a non-empty string; absent is '' unless required."""
        if value is None and not required:
            return ""
        if not isinstance(value, str) or not value:
            raise self.fail(path, f"expected a non-empty string, got {value!r}")
        return value

    def count(self, value: Any, path: str, default: int) -> int:
        """``value`` as a positive whole number; absent is ``default``."""
        if value is None:
            return default
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise self.fail(path, f"expected a positive whole number, got {value!r}")
        return value
