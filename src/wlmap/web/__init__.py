"""``wlmap web``: a read-only web page over the application layer.

The server (:mod:`wlmap.web.server`) answers a JSON API and the page's own static files;
what it shows comes from a :class:`~wlmap.web.source.Source`. :class:`FileSource` reads
files and dumps once (``wlmap web -f``); :class:`ClusterSource` keeps a live cluster's
workloads current by watches and streams their changes to the open pages, and a
:class:`Guard` checks each request's token and access with the API server (``--auth``). Nothing here interprets a workload: every
number is what :mod:`wlmap.app` returns to ``get``, ``describe``, ``explain``, ``plan``
and ``simulate``.
"""

from __future__ import annotations

from wlmap.web.access import Guard
from wlmap.web.live import ClusterSource
from wlmap.web.server import serve
from wlmap.web.source import FileSource, Inputs, Source

__all__ = ["ClusterSource", "FileSource", "Guard", "Inputs", "Source", "serve"]
