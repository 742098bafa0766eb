"""What the admission policy asks of the operator's writes beyond the pod fields: a served
namespace, and gang objects labelled as wlmap's.

RBAC grants by resource and namespace, never by label. Cluster-wide, the operator's role
reaches every namespace (the namespaces a selector serves cannot be written as bindings),
and every object of its gang kinds, wlmap's or not. The policy (see ``admission``) closes
both gaps for requests by the operator's service account:

- a write to pods, events or gang objects lands in a served namespace: never a system
  namespace; with the namespace selector (the bundle's mode, ``wlmap.dev/serve=true`` by
  default), a namespace whose labels match it; with listed namespaces (the overlay), one
  of them. Events may also go to the operator's own namespace, where kopf posts those of
  cluster-scoped objects (the definitions);
- a gang object is created with ``app.kubernetes.io/managed-by: wlmap``, changed only
  while it carries that label and keeps it, deleted only when it carries it: another
  scheduler's or user's group of the same kind is never changed or removed.
"""

from __future__ import annotations

from collections.abc import Sequence

from wlmap.operator.core.scope import DEFAULT_NAMESPACE_SELECTOR, SYSTEM_NAMESPACES
from wlmap.operator.core.settings import SYNC_TARGETS
from wlmap.operator.deploy.rbac import NAMESPACE
from wlmap.schedulers import PROFILES
from wlmap.sources.selectors import parse_selector

MANAGED_BY = "app.kubernetes.io/managed-by"
MANAGER = "wlmap"  # the value every generated gang object carries (schedulers.object_meta)
SERVED_VARIABLE = "served"
# The gang kinds of every scheduler: RBAC grants the configured target's only, and the
# policy holds for all of them should the role ever be widened.
GANG_RESOURCES: tuple[tuple[str, str], ...] = tuple(
    sorted({(k.group, k.plural) for target in SYNC_TARGETS for k in PROFILES[target].kinds})
)


def _quote(text: str) -> str:
    """A CEL string literal."""
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def _cel_list(items: Sequence[str]) -> str:
    return "[" + ", ".join(_quote(i) for i in items) + "]"


def selector_expression(selector: str, labels: str = "variables.namespaceLabels") -> str:
    """A CEL expression: whether the label map ``labels`` matches a label selector
    (``k=v``, ``k!=v``, ``k``, ``!k``, as the operator's ``WLMAP_NAMESPACE_SELECTOR``)."""
    terms = []
    for key, op, value in parse_selector(selector):
        k = _quote(key)
        if op == "=":
            terms.append(f"({k} in {labels} && {labels}[{k}] == {_quote(value or '')})")
        elif op == "!=":
            terms.append(f"(!({k} in {labels}) || {labels}[{k}] != {_quote(value or '')})")
        elif op == "exists":
            terms.append(f"{k} in {labels}")
        else:
            terms.append(f"!({k} in {labels})")
    return " && ".join(terms) or "true"


def served_expression(namespaces: Sequence[str] = (), namespace_selector: str | None = None) -> str:
    """The CEL test of the request's namespace that the policy's ``served`` variable holds:
    one of ``namespaces`` when listed (and matching ``namespace_selector`` when one is
    given too), else matching the selector (default ``wlmap.dev/serve=true``)."""
    if namespaces:
        listed = f"request.namespace in {_cel_list(sorted(set(namespaces)))}"
        if namespace_selector:
            return f"{listed} && {selector_expression(namespace_selector)}"
        return listed
    return selector_expression(namespace_selector or DEFAULT_NAMESPACE_SELECTOR)


def is_gang() -> str:
    """A CEL expression: whether the request is about a gang object."""
    kinds = _cel_list([f"{group}/{plural}" for group, plural in GANG_RESOURCES])
    return f"request.resource.group + '/' + request.resource.resource in {kinds}"


def namespace_check() -> str:
    """A CEL expression: the request is in a namespace the operator may write in."""
    return (
        f"!(request.namespace in {_cel_list(sorted(SYSTEM_NAMESPACES))})"
        f" && (variables.{SERVED_VARIABLE}"
        f" || (request.namespace == {_quote(NAMESPACE)}"
        " && request.resource.resource == 'events'))"
    )


def _labelled(obj: str) -> str:
    labels = f"{obj}.metadata.?labels.orValue({{}})"
    return (
        f"({_quote(MANAGED_BY)} in {labels} && {labels}[{_quote(MANAGED_BY)}] == {_quote(MANAGER)})"
    )


def gang_checks() -> list[tuple[str, str]]:
    """(CEL expression, message) pairs: a gang object is wlmap's before and after."""
    managed = f"{MANAGED_BY}={MANAGER}"
    gang = f"!({is_gang()})"  # pods and events pass these checks
    return [
        (
            f"{gang} || request.operation == 'DELETE' || {_labelled('object')}",
            f"may only create and update gang objects labelled {managed}",
        ),
        (
            f"{gang} || request.operation == 'CREATE' || {_labelled('oldObject')}",
            f"may only change or delete gang objects labelled {managed}, not another's",
        ),
    ]


def resource_rules() -> list[dict[str, object]]:
    """The requests the policy sees besides pods: events and the gang kinds."""
    by_group: dict[str, list[str]] = {}
    for group, plural in GANG_RESOURCES:
        by_group.setdefault(group, []).append(plural)
    rules = [(g, "v1", ["events"]) for g in ("", "events.k8s.io")]
    rules += [(group, "*", plurals) for group, plurals in sorted(by_group.items())]
    return [
        {
            "apiGroups": [group],
            "apiVersions": [version],
            "operations": ["CREATE", "UPDATE", "DELETE"],
            "resources": resources,
        }
        for group, version, resources in rules
    ]
