"""The group/version/kind that identifies a Kubernetes type."""

from __future__ import annotations

from wlmap.definitions._base import DefinitionModel


class GroupVersionKind(DefinitionModel):
    """A Kubernetes group/version/kind; the core group is the empty string."""

    group: str
    version: str
    kind: str

    @property
    def api_version(self) -> str:
        """``group/version``, or ``version`` alone for the core group."""
        return f"{self.group}/{self.version}" if self.group else self.version

    def __str__(self) -> str:
        return (
            f"{self.kind}.{self.version}.{self.group}"
            if self.group
            else f"{self.kind}.{self.version}"
        )
