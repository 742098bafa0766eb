"""One connection to a Kubernetes API server: kubeconfig, context or in-cluster config.

The transport (configuration loading, TLS, tokens, exec credential plugins, re-authentication
on 401) is kr8s's (docs/decisions/0007-cluster-client.md); everything above a raw request —
discovery, paging, watches, patches — is wlmap's, on plain dicts.
"""

from __future__ import annotations

import asyncio
import json
import os
import warnings
from collections.abc import AsyncIterator, Mapping
from pathlib import Path
from typing import Any

import httpx
import kr8s
import kr8s.asyncio
import yaml

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
    """Requests against one API server; paths are absolute API paths (``/apis/...``).

    A request answered 401 is sent once more after the credentials are reloaded (a token
    from the kubeconfig or an exec plugin may have expired since the connection was made).
    """

    def __init__(self, api: Any, context: str | None) -> None:
        self._api = api
        self.context = context
        self._auth_lock = asyncio.Lock()
        self._credentials = 0  # how often the credentials were reloaded
        self._retired: list[Any] = []  # sessions of older credentials, closed at the end

    @classmethod
    async def connect(cls, kubeconfig: str | None = None, context: str | None = None) -> Cluster:
        """Connect with a kubeconfig (default: ``$KUBECONFIG``, ``~/.kube/config``, then the
        in-cluster service account) and an optional context name.

        Raises:
            ClusterError: no configuration is found, the context does not exist, or the
                server cannot be reached.
        """
        if kubeconfig and not any(
            Path(p).expanduser().exists() for p in kubeconfig.split(os.pathsep) if p
        ):
            raise ClusterError(f"the kubeconfig {kubeconfig} does not exist")
        where = f"context {context!r}" if context else "the kubeconfig"
        try:
            with warnings.catch_warnings():
                # kr8s warns about server versions newer than it was tested with; wlmap
                # uses only its transport, which does not depend on the server version
                warnings.filterwarnings("ignore", "Kubernetes version", UserWarning)
                api = await kr8s.asyncio.api(kubeconfig=kubeconfig, context=context)
        except kr8s.ServerError as exc:
            refused = exc.response is not None and exc.response.status_code == 401
            what = f"does not accept the credentials of {where}" if refused else "refused"
            raise ClusterError(
                f"the API server{_server_of(exc.response)} {what}: {_reason(exc)}"
            ) from exc
        except (httpx.HTTPError, OSError) as exc:
            raise ClusterError(
                f"cannot reach the API server{_server_of(exc)}: {_reason(exc)}"
            ) from exc
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            at = f" (line {mark.line + 1}, column {mark.column + 1})" if mark else ""
            problem = getattr(exc, "problem", None) or _reason(exc)
            raise ClusterError(f"the kubeconfig is malformed YAML{at}: {problem}") from exc
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
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
        kwargs: dict[str, Any] = {"headers": {"Content-Type": content_type, "Accept": accept}}
        if params:
            kwargs["params"] = {k: v for k, v in params.items() if v is not None}
        if body is not None:
            kwargs["content"] = body if isinstance(body, str) else json.dumps(body)
        try:
            for last in (False, True):
                credentials = self._credentials
                async with self._call(method, path, **kwargs) as response:
                    if response.status_code != 401 or last:
                        _raise_for(response, method, path)
                        answer: dict[str, Any] = response.json()
                        return answer
                await self._reauthenticate(credentials)
        except (httpx.HTTPError, kr8s.APITimeoutError, OSError) as exc:
            raise ClusterError(f"{method} {path}: {_reason(exc)}") from exc
        raise AssertionError("the last attempt returns or raises")

    async def lines(
        self, path: str, params: Mapping[str, Any], timeout: float | None = None
    ) -> AsyncIterator[str]:
        """The lines of a streamed answer (a watch), until the server ends it.

        Raises:
            ApiError: the server refused the request.
            ClusterError: the connection failed.
        """
        try:
            for last in (False, True):
                credentials = self._credentials
                async with self._call(
                    "GET", path, params=dict(params), stream=True, timeout=timeout
                ) as response:
                    if response.status_code != 401 or last:
                        if response.is_error:
                            await response.aread()
                            _raise_for(response, "GET", path)
                        async for line in response.aiter_lines():
                            if line:
                                yield line
                        return
                await self._reauthenticate(credentials)
        except (httpx.HTTPError, kr8s.APITimeoutError, OSError) as exc:
            raise ClusterError(f"watch {path}: {_reason(exc)}") from exc

    def _call(self, method: str, path: str, **kwargs: Any) -> Any:
        """kr8s's request context for an absolute API path; errors are left to the caller
        (kr8s re-authenticates only when it raises them itself)."""
        base, _, rest = path.lstrip("/").partition("/")
        return self._api.call_api(
            method, version="", base=f"/{base}", url=rest, raise_for_status=False, **kwargs
        )

    async def _reauthenticate(self, credentials: int) -> None:
        """Reload the credentials once for all requests that failed with the same ones."""
        async with self._auth_lock:
            if credentials != self._credentials:
                return  # a concurrent request already reloaded them
            try:
                await self._api.auth.reauthenticate()
            except (ValueError, KeyError, TypeError, OSError) as exc:
                raise ClusterError(f"cannot reload the credentials: {_reason(exc)}") from exc
            self._credentials += 1
            # kr8s would close the old session; requests under way on it (watches) finish
            # first, and it is closed with the others at the end
            stale = self._api._session
            self._api._session = None
            await self._api._create_session()
            if stale is not None:
                self._retired.append(stale)

    async def close(self) -> None:
        """Close the underlying connections."""
        sessions = [*self._retired, getattr(self._api, "_session", None)]
        self._retired.clear()
        for session in sessions:
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


def _server_of(source: object) -> str:
    """`` at https://host:port`` for the request an error or answer belongs to, when known."""
    try:
        request = getattr(source, "request", None)
    except RuntimeError:  # an httpx error raised before any request was made
        return ""
    if not isinstance(request, httpx.Request):
        return ""
    return f" at {request.url.scheme}://{request.url.netloc.decode()}"


def _reason(exc: BaseException) -> str:
    text = str(exc).strip()
    return text or type(exc).__name__
