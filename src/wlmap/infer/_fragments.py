"""Pods described field by field: an object with an image and container resources.

Some operators build their pods from scattered fields instead of a template (an
``image`` beside ``resources``, ``nodeSelector``, ``tolerations``, ``replicas``). Such an
object is a pod role whose fields the definition reads one by one
(``fragmentedPodSpecDefinition``). It is found by shape: an ``image`` (a string, or an
object with a ``repository``) beside ``resources`` (or ``resourcesPerNode``...) with
``limits`` or ``requests``.
Where such objects nest (defaults for every role above each role's own), the innermost
are the roles. Container lists (``initContainers``, ``sidecars``) are not roles, and
neither are patches or overrides. Only used when the spec holds no pod template.
"""

from __future__ import annotations

import re

from wlmap.infer._evidence import Evidence, Strength
from wlmap.infer._schema import ITEMS, VALUES, Node, show, walk
from wlmap.infer._templates import Template

_NOT_A_ROLE = re.compile(r"patch|override|containers|sidecars", re.IGNORECASE)
# The step after a role object where the roles planner expects a template: the object's
# own pod fields (the planner then reads the role's counts on the object itself).
FIELDS = "<pod fields>"
# fragmentedPodSpecDefinition field -> property names that hold it, first match wins.
_FIELDS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("schedulerNamePath", ("schedulerName",)),
    ("priorityClassNamePath", ("priorityClassName",)),
    ("labelsPath", ("podLabels", "labels")),
    ("annotationsPath", ("podAnnotations", "annotations")),
)


def _image(node: Node) -> str | None:
    """The jq (relative to the role) of the image, or None when ``node`` has none."""
    image = node.child("image")
    if image is None:
        return None
    if image.type == "string":
        return ".image"
    if "repository" in image.properties:
        tag = ':\\(.image.tag)"' if "tag" in image.properties else '"'
        return f'"\\(.image.repository){tag}'
    return None


def _resources(node: Node) -> str | None:
    """The property holding the pod's container resources (``resources``,
    ``resourcesPerNode``): an object with ``limits`` or ``requests``."""
    for name in node.properties:
        resources = node.child(name)
        if (
            name.startswith("resources")
            and resources is not None
            and {"limits", "requests"} & set(resources.properties)
        ):
            return name
    return None


def _is_role(node: Node) -> bool:
    if node.type != "object" or any(_NOT_A_ROLE.search(s) for s in node.path):
        return False
    if any(s in (ITEMS, VALUES) for s in node.path):
        return False  # roles in lists and maps come with templates; not drafted here
    return _image(node) is not None and _resources(node) is not None


def fragment_paths(node: Node) -> dict[str, str]:
    """The fragmentedPodSpecDefinition of the role at ``node``, relative to it."""
    out = {"resourcesPath": f".{_resources(node)}"}
    image = _image(node)
    if image is not None:
        out["imagePath"] = image
    for field, names in _FIELDS:
        name = next((n for n in names if node.child(n) is not None), None)
        if name is not None:
            out[field] = f".{name}"
    affinity = node.child("affinity")
    if affinity is not None:
        for kind in ("nodeAffinity", "podAffinity"):
            if kind in affinity.properties or not affinity.properties:
                out[f"{kind}Path"] = f".affinity.{kind}"
    return out


def find_fragments(spec: Node) -> list[Template]:
    """Every innermost object below ``spec`` that describes a pod by its fields."""
    roles = [n for n in walk(spec) if _is_role(n)]
    innermost = [
        n for n in roles if not any(o.path[: len(n.path)] == n.path and o is not n for o in roles)
    ]
    return [
        Template(
            n.path,
            "fragments",
            Evidence(
                "pod fields",
                show(n.path),
                show(n.path),
                "an image beside container resources, no pod template: the pod is built "
                "from these fields",
                Strength.GUESS,
            ),
            fragment_paths(n),
        )
        for n in innermost
    ]
