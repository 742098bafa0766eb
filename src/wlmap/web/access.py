"""Who is asking, and what they may see: TokenReview and SubjectAccessReview.

With ``wlmap web --auth`` every request must carry ``Authorization: Bearer TOKEN``. The
token is reviewed by the API server (TokenReview); a workload is shown only when the user
may ``list`` its kind in its namespace (SubjectAccessReview, asked as the user with their
groups). Answers are kept for :data:`KEEP_SECONDS` per token, so a page and its updates
do not ask again for every row; tokens are kept only as their SHA-256.
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from wlmap.errors import ClusterError

__all__ = ["KEEP_SECONDS", "Ask", "Guard", "User"]

KEEP_SECONDS = 10.0
"""How long a token's review and its access answers are kept."""

TOKEN_REVIEW = "/apis/authentication.k8s.io/v1/tokenreviews"
ACCESS_REVIEW = "/apis/authorization.k8s.io/v1/subjectaccessreviews"

Ask = Callable[[str, dict[str, Any]], dict[str, Any]]
"""POSTs a review to the API server and returns its answer."""


@dataclass
class User:
    """An authenticated user and the access answers given for them."""

    name: str
    uid: str
    groups: tuple[str, ...]
    extra: dict[str, list[str]]
    until: float
    answers: dict[tuple[str, str, str], bool] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)


class Guard:
    """Reviews tokens and access with the API server.

    Args:
        ask: POSTs a review (the source's connection: it needs to create TokenReviews
            and SubjectAccessReviews, as the ``system:auth-delegator`` role allows).
        plural: the resource name a (group, kind) is served under.
        clock: seconds, for the cache.
    """

    def __init__(
        self,
        ask: Ask,
        plural: Callable[[str, str], str | None],
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._ask = ask
        self._plural = plural
        self._clock = clock
        self._users: dict[str, User] = {}
        self._lock = threading.Lock()

    def user(self, authorization: str | None) -> User | None:
        """The user a request's Authorization header names, or None when it names none
        the API server accepts.

        Raises:
            ClusterError: the API server cannot review it now.
        """
        scheme, _, token = (authorization or "").partition(" ")
        token = token.strip()
        if scheme.lower() != "bearer" or not token:
            return None
        digest = hashlib.sha256(token.encode()).hexdigest()
        now = self._clock()
        with self._lock:
            for stale in [d for d, u in self._users.items() if u.until <= now]:
                del self._users[stale]
            known = self._users.get(digest)
        if known is not None:
            return known
        review = {
            "apiVersion": "authentication.k8s.io/v1",
            "kind": "TokenReview",
            "spec": {"token": token},
        }
        status = self._ask(TOKEN_REVIEW, review).get("status") or {}
        if not status.get("authenticated"):
            return None
        info = status.get("user") or {}
        found = User(
            name=str(info.get("username", "")),
            uid=str(info.get("uid", "")),
            groups=tuple(info.get("groups") or ()),
            extra={str(k): list(v) for k, v in (info.get("extra") or {}).items()},
            until=now + KEEP_SECONDS,
        )
        with self._lock:
            self._users[digest] = found
        return found

    def may_list(self, user: User, group: str, kind: str, namespace: str | None) -> bool:
        """Whether ``user`` may list ``kind`` in ``namespace`` (None: cluster-wide).

        Raises:
            ClusterError: the API server cannot review it now.
        """
        where = namespace or ""
        with user.lock:
            answer = user.answers.get((group, kind, where))
        if answer is not None:
            return answer
        plural = self._plural(group, kind)
        if plural is None:
            return False
        attributes: dict[str, Any] = {"verb": "list", "group": group, "resource": plural}
        if namespace:
            attributes["namespace"] = namespace
        review = {
            "apiVersion": "authorization.k8s.io/v1",
            "kind": "SubjectAccessReview",
            "spec": {
                "user": user.name,
                "uid": user.uid,
                "groups": list(user.groups),
                "extra": user.extra,
                "resourceAttributes": attributes,
            },
        }
        status = self._ask(ACCESS_REVIEW, review).get("status") or {}
        answer = bool(status.get("allowed")) and not status.get("denied")
        with user.lock:
            user.answers[(group, kind, where)] = answer
        return answer


def refusal(exc: ClusterError) -> str:
    """What a page is told when a review could not be made."""
    return f"cannot check access now: {str(exc).splitlines()[0]}"
