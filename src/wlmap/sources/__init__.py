"""Where objects come from: files and folders now, clusters later."""

from wlmap.sources.inventory import Inventory, controller_uid
from wlmap.sources.manifests import Manifest, parse_manifests, read_manifests

__all__ = ["Inventory", "Manifest", "controller_uid", "parse_manifests", "read_manifests"]
