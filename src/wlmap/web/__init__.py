"""``wlmap web``: a read-only web page over the application layer.

The server (:mod:`wlmap.web.server`) answers a JSON API and the page's own static files;
what it shows comes from a :class:`~wlmap.web.source.Source`. :class:`FileSource` reads
files and dumps once (``wlmap web -f``); a source that reads a cluster can take its place
without the server or the page changing. Nothing here interprets a workload: every
number is what :mod:`wlmap.app` returns to ``get``, ``describe``, ``explain``, ``plan``
and ``simulate``.
"""

from __future__ import annotations

from wlmap.web.server import serve
from wlmap.web.source import FileSource, Inputs, Source

__all__ = ["FileSource", "Inputs", "Source", "serve"]
