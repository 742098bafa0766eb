"""Renderers of the workload view: text for people, JSON/YAML for programs.

``render_tree`` is imported on first use (PEP 562): the command line uses the small text
helpers here without loading the workload model.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from wlmap.views.tree import render_tree

__all__ = ["render_tree"]

if not TYPE_CHECKING:  # type checkers see the import above; unknown names stay errors

    def __getattr__(name: str) -> Any:
        if name != "render_tree":
            raise AttributeError(f"module 'wlmap.views' has no attribute {name!r}")
        from wlmap.views.tree import render_tree  # noqa: PLC0415 - the point of this module

        globals()[name] = render_tree
        return render_tree
