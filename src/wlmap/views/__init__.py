"""Renderers of the workload view: text for people, JSON/YAML for programs."""

from wlmap.views.tree import render_tree

__all__ = ["render_tree"]
