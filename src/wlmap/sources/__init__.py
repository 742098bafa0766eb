"""Where objects come from: files and folders now, clusters later."""

from wlmap.sources.manifests import Manifest, parse_manifests, read_manifests

__all__ = ["Manifest", "parse_manifests", "read_manifests"]
