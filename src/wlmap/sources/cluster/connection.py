"""One connection to a Kubernetes API server: kubeconfig, context or in-cluster config.

The transport (configuration loading, TLS, tokens, exec credential plugins, re-authentication
on 401) is kr8s's (docs/decisions/0007-cluster-client.md); everything above a raw request —
discovery, paging, watches, patches — is wlmap's, on plain dicts.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import AsyncIterator, Mapping
from typing import Any

import httpx
import kr8s
import kr8s.asyncio

from wlmap.errors import ClusterError

REQUEST_TIMEOUT = 30.0
MERGE_PATCH = "application/merge-patch+json"
APPLY_PATCH = "application/apply-patch+yaml"


class ApiError(ClusterError):
    """The API server answered with an error status (404 not found, 403 forbidden, 409...)."""

    def __init__(self, message: str, code: int, reason: str = "") -> None:
        super().__init__(message)
        self.code = code
        self.reason = reason


class Cluster:
    """Requests against one API server; paths are absolute API paths (``/apis/...``)."""

    def __init__(self, api: Any, context: str | None) -> None:
        self._api = api
        self.context = context

    @classmethod
    async def connect(cls, kubeconfig: str | None = None, context: str | None = None) -> Cluster:
        """Connect with a kubeconfig (default: ``$KUBECONFIG``, ``~/.kube/config``, then the
        in-cluster service account) and an optional context name.

        Raises:
            ClusterError: no configuration is found, the context does not exist, or the
                server cannot be reached.
        """
        try:
            with warnings.catch_warnings():
                # kr8s warns about server versions newer than it was tested with; wlmap
                # uses only its transport, which does not depend on the server version
                warnings.filterwarnings("ignore", "Kubernetes version", UserWarning)
                api = await kr8s.asyncio.api(kubeconfig=kubeconfig, context=context)
        except (httpx.HTTPError, kr8s.ServerError, OSError) as exc:
            raise ClusterError(f"cannot reach the API server: {_reason(exc)}") from exc
        except (ValueError, KeyError, TypeError) as exc:
            where = f"context {context!r}" if context else "the kubeconfig"
            raise ClusterError(f"cannot use {where}: {_reason(exc)}") from exc
        api.timeout = REQUEST_TIMEOUT
        return cls(api, context)

    @property
    def namespace(self) -> str:
        """The namespace the configuration selects (``default`` when it names none)."""
        return str(getattr(self._api, "namespace", None) or "default")

    @property
    def server(self) -> str:
        """The API server's address."""
        return str(self._api.auth.server)

    async def request(
        self,
        method: str,
        path: str,
        *,
        params: Mapping[str, Any] | None = None,
        body: Any = None,
        content_type: str = "application/json",
        accept: str = "application/json",
    ) -> dict[str, Any]:
        """One request; the decoded JSON answer.

        Raises:
            ApiError: the server answered with an error status.
            ClusterError: the server cannot be reached or did not answer in time.
        """
        base, _, rest = path.lstrip("/").partition("/")
        kwargs: dict[str, Any] = {"headers": {"Content-Type": content_type, "Accept": accept}}
        if params:
            kwargs["params"] = {k: v for k, v in params.items() if v is not None}
        if body is not None:
            kwargs["content"] = body if isinstance(body, str) else json.dumps(body)
        try:
            async with self._api.call_api(
                method, version="", base=f"/{base}", url=rest, raise_for_status=False, **kwargs
            ) as response:
                _raise_for(response, method, path)
                answer: dict[str, Any] = response.json()
                return answer
        except (httpx.HTTPError, kr8s.APITimeoutError, OSError) as exc:
            raise ClusterError(f"{method} {path}: {_reason(exc)}") from exc

    async def lines(
        self, path: str, params: Mapping[str, Any], timeout: float | None = None
    ) -> AsyncIterator[str]:
        """The lines of a streamed answer (a watch), until the server ends it.

        Raises:
            ApiError: the server refused the request.
            ClusterError: the connection failed.
        """
        base, _, rest = path.lstrip("/").partition("/")
        try:
            async with self._api.call_api(
                "GET",
                version="",
                base=f"/{base}",
                url=rest,
                params=dict(params),
                stream=True,
                raise_for_status=False,
                timeout=timeout,
            ) as response:
                if response.is_error:
                    await response.aread()
                    _raise_for(response, "GET", path)
                async for line in response.aiter_lines():
                    if line:
                        yield line
        except (httpx.HTTPError, kr8s.APITimeoutError, OSError) as exc:
            raise ClusterError(f"watch {path}: {_reason(exc)}") from exc

    async def close(self) -> None:
        """Close the underlying connections."""
        session = getattr(self._api, "_session", None)
        if session is not None:
            await session.aclose()


def _raise_for(response: httpx.Response, method: str, path: str) -> None:
    if not response.is_error:
        return
    try:
        status = response.json()
    except ValueError:
        status = {}
    message = status.get("message") if isinstance(status, dict) else None
    reason = status.get("reason", "") if isinstance(status, dict) else ""
    raise ApiError(
        f"{method} {path}: {response.status_code} {message or response.reason_phrase}",
        response.status_code,
        str(reason),
    )


def _reason(exc: BaseException) -> str:
    text = str(exc).strip()
    return text or type(exc).__name__
